//! The store's memory limit: wasmtime's `StoreLimits`, plus a record of what
//! the component asked for, so a trap after a refused growth can be named.

use wasmtime::{ResourceLimiter, StoreLimits, StoreLimitsBuilder, Trap};

use crate::Error;
use crate::limits::{LimitExceeded, Limits};

/// Applies a memory limit to one store and remembers sizes and refusals.
#[derive(Debug, Default)]
pub(crate) struct MemoryLimiter {
    limits: StoreLimits,
    limit: Option<usize>,
    /// Size of the component's memory when it was created: its data and stack.
    own: usize,
    /// Current size of the memory (wasm memories never shrink).
    size: usize,
    /// The largest size refused since the current call began.
    refused: Option<usize>,
}

impl MemoryLimiter {
    /// The error for a call that failed inside the runtime: a trap caused by one
    /// of `limits` names that limit (the trap itself, an `unreachable` or an
    /// interrupt with a wasm backtrace, adds nothing), anything else passes through.
    pub(crate) fn explain(&self, err: wasmtime::Error, limits: &Limits) -> Error {
        let interrupted = matches!(err.downcast_ref::<Trap>(), Some(Trap::Interrupt));
        let limit = if interrupted {
            limits
                .call_deadline
                .map(|deadline| LimitExceeded::Deadline { deadline })
        } else {
            self.refused_this_call()
        };
        match limit {
            Some(limit) => limit.into(),
            None => err.into(),
        }
    }

    /// Limits growth to `limit` bytes from now on (`None`: no limit).
    pub(crate) fn set_limit(&mut self, limit: Option<usize>) {
        let builder = StoreLimitsBuilder::new();
        self.limits = match limit {
            Some(bytes) => builder.memory_size(bytes),
            None => builder,
        }
        .build();
        self.limit = limit;
    }

    /// Bytes of linear memory the component holds now.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// Forgets refusals of earlier calls.
    pub(crate) fn begin_call(&mut self) {
        self.refused = None;
    }

    /// Refuses an input that cannot fit next to the component's own memory.
    /// A lower bound of what the call needs (the input is one allocation above
    /// the data and stack), so nothing that could succeed is refused.
    pub(crate) fn check_input(&self, input_bytes: u64) -> Result<(), LimitExceeded> {
        let Some(limit) = self.limit else {
            return Ok(());
        };
        // The initial memory is rounded up to whole 64 KiB pages: one page of
        // it may still be free for the heap.
        let own = self.own.saturating_sub(WASM_PAGE) as u64;
        if input_bytes.saturating_add(own) > limit as u64 {
            return Err(LimitExceeded::InputTooLarge {
                input_bytes,
                own_bytes: self.own as u64,
                limit_bytes: limit as u64,
            });
        }
        Ok(())
    }

    /// The growth this call was refused, if any.
    pub(crate) fn refused_this_call(&self) -> Option<LimitExceeded> {
        Some(LimitExceeded::Memory {
            requested_bytes: self.refused? as u64,
            limit_bytes: self.limit? as u64,
        })
    }
}

/// Size of a wasm page.
const WASM_PAGE: usize = 64 << 10;

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = self.limits.memory_growing(current, desired, maximum)?;
        if !allowed {
            self.refused = Some(self.refused.unwrap_or(0).max(desired));
        } else if current == 0 && self.own == 0 {
            // Called with 0 when the memory is created.
            self.own = desired;
            self.size = desired;
        } else {
            self.size = self.size.max(desired);
        }
        Ok(allowed)
    }

    fn memory_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        self.limits.memory_grow_failed(error)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }

    fn table_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        self.limits.table_grow_failed(error)
    }

    fn instances(&self) -> usize {
        self.limits.instances()
    }

    fn tables(&self) -> usize {
        self.limits.tables()
    }

    fn memories(&self) -> usize {
        self.limits.memories()
    }
}
