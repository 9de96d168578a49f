"""The runner of the shared JSON vectors (../tests/vectors/README.md), the
Python twin of tests/tests/vectors_support/*.rs (without BLESS)."""

from pathlib import Path

VECTORS_DIR = Path(__file__).resolve().parents[3] / "tests" / "vectors"


def vector_files() -> list[Path]:
    """Every `*.json` file of the shared vectors folder, sorted by name."""
    return sorted(VECTORS_DIR.glob("*.json"))
