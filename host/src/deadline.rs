//! Per-call deadlines by epoch interruption. One ticker thread per engine,
//! started by the first call that has a deadline, advances the engine's epoch
//! every [`TICK`] while such a call runs and waits otherwise, so an idle host
//! pays nothing for it.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Duration;

use wasmtime::{Engine, Store};

use crate::Error;

/// How often the epoch advances while a call runs: the deadlines' precision.
pub(crate) const TICK: Duration = Duration::from_millis(10);

/// An epoch deadline no call reaches, far from overflowing `epoch + delta`.
const NEVER: u64 = u64::MAX / 2;

/// The engine's epoch ticker.
pub(crate) struct Ticker {
    engine: Engine,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// Calls with a deadline in progress.
    running: usize,
    started: bool,
    stopped: bool,
    /// The ticker thread waits for a call: the next call must wake it. While
    /// it ticks, calls skip the wake-up (a futex syscall, a third of a small
    /// call's cost, measured in bench/).
    idle: bool,
}

impl Shared {
    /// The state, even if a thread panicked while holding it: it stays
    /// consistent, every change is a single field update.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Ticker {
    /// A ticker for `engine`; its thread starts with the first deadline.
    pub(crate) fn new(engine: &Engine) -> Self {
        Self {
            engine: engine.clone(),
            shared: Arc::default(),
        }
    }

    /// Sets `store`'s deadline for the call about to start, `deadline` from
    /// now (in whole ticks, plus one for the tick in progress), and keeps the
    /// epoch moving until the returned guard drops.
    pub(crate) fn arm<T>(
        &self,
        store: &mut Store<T>,
        deadline: Option<Duration>,
    ) -> Result<Running, Error> {
        let Some(deadline) = deadline else {
            store.set_epoch_deadline(NEVER);
            return Ok(Running(None));
        };
        let wake = {
            let mut state = self.shared.lock();
            if !state.started {
                self.spawn()?;
                state.started = true;
            }
            state.running += 1;
            std::mem::take(&mut state.idle)
        };
        if wake {
            self.shared.wake.notify_one();
        }
        store.set_epoch_deadline(ticks(deadline));
        Ok(Running(Some(Arc::clone(&self.shared))))
    }

    fn spawn(&self) -> Result<(), Error> {
        let (engine, shared) = (self.engine.clone(), Arc::clone(&self.shared));
        thread::Builder::new()
            .name("toolcap-epoch".into())
            .spawn(move || tick_while_calls_run(&engine, &shared))
            .map_err(|err| {
                Error::runtime(anyhow::Error::new(err).context("starting the call deadline thread"))
            })?;
        Ok(())
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.shared.lock().stopped = true;
        self.shared.wake.notify_all();
    }
}

/// A call with a deadline in progress; the epoch advances while one exists.
pub(crate) struct Running(Option<Arc<Shared>>);

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(shared) = &self.0 {
            shared.lock().running -= 1;
        }
    }
}

fn tick_while_calls_run(engine: &Engine, shared: &Shared) {
    loop {
        {
            let mut state = shared.lock();
            while state.running == 0 && !state.stopped {
                // Set and waited on under one lock: no call can miss it.
                state.idle = true;
                state = shared
                    .wake
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if state.stopped {
                return;
            }
        }
        thread::sleep(TICK);
        engine.increment_epoch();
    }
}

/// Epoch ticks for `deadline`: rounded up, plus the tick already under way.
fn ticks(deadline: Duration) -> u64 {
    let whole = deadline.as_nanos().div_ceil(TICK.as_nanos());
    u64::try_from(whole).map_or(NEVER, |t| t.saturating_add(1).min(NEVER))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_round_up_to_whole_ticks_plus_one() {
        assert_eq!(ticks(Duration::ZERO), 1);
        assert_eq!(ticks(Duration::from_millis(1)), 2);
        assert_eq!(ticks(TICK), 2);
        assert_eq!(ticks(Duration::from_secs(30)), 3001);
        assert_eq!(ticks(Duration::MAX), NEVER);
    }
}
