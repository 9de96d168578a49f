"""Never answers `hang`. `tick` sends `arguments.ticks` progress
notifications `arguments.every` seconds apart, then answers. With
`--answer-late`, a cancelled `hang` is answered anyway, right after the
cancellation arrives, as a careless server would."""

import time

from stub import Stub

LATE = "a late answer the client must never see"
# Ids of the `hang` calls received.
HANGING = set()


def hang(stub: Stub, message: dict) -> None:
    HANGING.add(message["id"])


def tick(stub: Stub, message: dict) -> None:
    arguments = message["params"].get("arguments", {})
    token = message["params"].get("_meta", {}).get("progressToken", "tick")
    ticks = int(arguments.get("ticks", 5))
    for n in range(1, ticks + 1):
        time.sleep(float(arguments.get("every", 0.5)))
        stub.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": token, "progress": n, "total": ticks},
            }
        )
    stub.text_result(message["id"], f"{ticks} ticks")


if __name__ == "__main__":
    stub = Stub("silent", {"hang": hang, "tick": tick})
    if "--answer-late" in stub.args:

        def answer_late(request_id) -> None:
            if request_id in HANGING:
                stub.text_result(request_id, LATE)

        stub.on_cancel = answer_late
    stub.run()
