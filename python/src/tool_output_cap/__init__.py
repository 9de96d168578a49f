"""tool-output-cap for Python: cap AI agents' tool results to a budget, spill
the full output to disk with a verified reference, read it back, prune old
tool messages, plan a whole turn of results into what the next request has
left, and classify "request too large" errors.

The work is done by a WebAssembly component run with wasmtime; see
`open_session`, `open_spill_store` and `classify`. It speaks the WIT package
`toolcap:tool-output-cap@0.2.0`.
"""

from ._runtime import use_compiled_code_cache
from .errors import ToolCapError
from .session import Session, classify, open_session
from .store import SpillStore, open_spill_store
from .stream import CapStream, Chunk, McpStream
from .types import (
    Audio,
    BatchResult,
    Budget,
    Call,
    CapReport,
    Capped,
    CappedMcp,
    CappedParts,
    ContentPart,
    ErrorCase,
    GrepMatch,
    GrepResult,
    Image,
    Keep,
    Other,
    Overflow,
    OverflowKind,
    OverflowRef,
    Page,
    PendingResult,
    PrunePolicy,
    Pruned,
    ReadToolOutput,
    ReadToolSpec,
    RedactionCount,
    RedactionPolicy,
    RequestLimits,
    Resource,
    RetentionPolicy,
    SizeUnit,
    SpillEntry,
    StoreStats,
    SweepReason,
    SweepReport,
    SweptFile,
    Text,
    budget,
)

__version__ = "0.2.0"

__all__ = [
    "Audio",
    "BatchResult",
    "Budget",
    "Call",
    "CapReport",
    "CapStream",
    "McpStream",
    "Capped",
    "CappedMcp",
    "CappedParts",
    "Chunk",
    "ContentPart",
    "ErrorCase",
    "GrepMatch",
    "GrepResult",
    "Image",
    "Keep",
    "Other",
    "Overflow",
    "OverflowKind",
    "OverflowRef",
    "Page",
    "PendingResult",
    "PrunePolicy",
    "Pruned",
    "ReadToolOutput",
    "ReadToolSpec",
    "RedactionCount",
    "RedactionPolicy",
    "RequestLimits",
    "Resource",
    "RetentionPolicy",
    "Session",
    "SizeUnit",
    "SpillEntry",
    "SpillStore",
    "StoreStats",
    "SweepReason",
    "SweepReport",
    "SweptFile",
    "Text",
    "ToolCapError",
    "budget",
    "classify",
    "open_session",
    "open_spill_store",
    "use_compiled_code_cache",
]
