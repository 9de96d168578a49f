"""Writes what is not JSON: `garbage` answers with a line that starts like
its response (its id readable) and breaks off; `noise` writes a line of
plain text before its correct answer."""

from stub import Stub

NOISE = b"noise.py says hello on stdout, which is not JSON-RPC"


def garbage(stub: Stub, message: dict) -> None:
    request_id = str(message["id"]).encode()
    stub.write_raw(b'{"jsonrpc":"2.0","id":' + request_id + b',"result":{"content":[{"type":"text","text":"cut sh\n')


def noise(stub: Stub, message: dict) -> None:
    stub.write_raw(NOISE + b"\n")
    stub.text_result(message["id"], "the answer after the noise")


if __name__ == "__main__":
    Stub("garbage", {"garbage": garbage, "noise": noise}).run()
