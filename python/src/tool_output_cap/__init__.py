"""tool-output-cap for Python: cap AI agents' tool results to a budget, spill
the full output to disk with a verified reference, read it back, prune old
tool messages, plan a whole turn of results into what the next request has
left, and classify "request too large" errors.

The work is done by a WebAssembly component run with wasmtime; see
`open_session` and `classify`. It speaks the WIT package
`toolcap:tool-output-cap@0.2.0`.
"""

from .errors import ToolCapError
from .session import Session, classify, open_session
from .types import (
    Audio,
    BatchResult,
    Budget,
    Call,
    CapReport,
    Capped,
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
    RequestLimits,
    Resource,
    SizeUnit,
    Text,
    budget,
)

__version__ = "0.1.0"

__all__ = [
    "Audio",
    "BatchResult",
    "Budget",
    "Call",
    "CapReport",
    "Capped",
    "CappedParts",
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
    "RequestLimits",
    "Resource",
    "Session",
    "SizeUnit",
    "Text",
    "ToolCapError",
    "budget",
    "classify",
    "open_session",
]
