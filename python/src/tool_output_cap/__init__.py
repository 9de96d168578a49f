"""tool-output-cap for Python: cap AI agents' tool results to a budget, spill
the full output to disk with a verified reference, read it back, prune old
tool messages and classify "request too large" errors.

The work is done by a WebAssembly component run with wasmtime; see
`open_session` and `classify`. It speaks the WIT package
`toolcap:tool-output-cap@0.2.0`.
"""

from .errors import ToolCapError
from .session import Session, classify, open_session
from .types import (
    Audio,
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
    OverflowKind,
    OverflowRef,
    Page,
    PrunePolicy,
    Pruned,
    Resource,
    Text,
    budget,
)

__version__ = "0.1.0"

__all__ = [
    "Audio",
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
    "OverflowKind",
    "OverflowRef",
    "Page",
    "PrunePolicy",
    "Pruned",
    "Resource",
    "Session",
    "Text",
    "ToolCapError",
    "budget",
    "classify",
    "open_session",
]
