"""Crashes in the middle of a call: `crash` writes the start of its answer,
a last line on stderr, and exits with status 3 without finishing;
`crash_quietly` writes the stderr line and exits, with no answer begun."""

import os
import sys

from stub import Stub

LAST_WORDS = "crash.py: giving up in the middle of the answer"
EXIT_STATUS = 3


def crash(stub: Stub, message: dict) -> None:
    stub.write_raw(b'{"jsonrpc":"2.0","id":' + str(message["id"]).encode() + b',"result":{"content":[')
    print(LAST_WORDS, file=sys.stderr, flush=True)
    os._exit(EXIT_STATUS)


def crash_quietly(stub: Stub, message: dict) -> None:
    print(LAST_WORDS, file=sys.stderr, flush=True)
    os._exit(EXIT_STATUS)


if __name__ == "__main__":
    Stub("crash", {"crash": crash, "crash_quietly": crash_quietly}).run()
