"""A small scripted MCP server over stdio for toolcap's proxy tests.

Not the thing under test: it only answers in ways that exercise the proxy.
Its tools (arguments in brackets):
  echo [text]            one text block with `text`
  big [bytes, is_error, varied]
                         one text block of `bytes` bytes of numbered lines
                         (`varied`: lines that differ in letters, which no
                         preview folds)
  blocks [bytes, varied] big text, an image block and structuredContent
  slow [seconds]         answers after `seconds`, unless cancelled first
  stubborn [seconds]     answers after `seconds`, cancelled or not
  progress [seconds]     sends progress every 0.2 s for `seconds`, then answers
  ask                    asks the client for sampling first, answers with its reply
  notify [text]          sends a log notification, then answers
  crash                  says `boom` on stderr and exits with status 3
  garbage                writes a line that is not JSON, then a cut-off answer
  silent                 never answers
  raw [lines, bytes]     writes each of `lines` as it is, with $ID replaced by
                         the call's id and $TEXT by a JSON string of `bytes`
                         bytes of numbered lines (malformed answers on purpose)
  flood [count, bytes]   sends `count` log notifications of `bytes` bytes each,
                         saying `flooded <n>` on stderr after each, then answers
  scribble [bytes]       writes `bytes` bytes on stderr with no line end at all,
                         then answers
Resources: none (every resources/ request is a method it does not know),
unless FAKE_RESOURCES is set: then it offers two resources on two pages
(`fake://a`, cursor `r2`, `fake://b`), reads them, and lists one template;
the cursor `empty` gives an empty last page whose `nextCursor` is "".
The environment variable FAKE_MODE changes the whole server: `deaf` never
reads its stdin; `clingy` ignores SIGTERM and SIGINT and keeps running after
its stdin closes. The server says `pid <pid>` on stderr when it starts.
Tools that wait run on their own thread; the others answer at once, in the
order their calls came. Every message received is logged on stderr as `got <method or id>`; every
cancellation as `cancelled <requestId>`.
"""

import json
import os
import sys
import threading
import time

out_lock = threading.Lock()
cancelled = set()
replies = {}
reply_arrived = threading.Condition()


def write_raw(text):
    with out_lock:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def send(message):
    # Python's default separators (", " and ": ") make lines that a
    # re-serializing proxy would change: the tests compare bytes.
    write_raw(json.dumps(message))


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def text_result(text, is_error=False):
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def letters(n):
    word = ""
    while True:
        word += chr(ord("a") + n % 26)
        n //= 26
        if n == 0:
            return word


def numbered(total, varied=False):
    lines, size, i = [], 0, 0
    while size < total:
        if varied:
            line = "entry %s holds %s\n" % (letters(i), letters(i * 7 + 3))
        else:
            line = "line %d of the big output\n" % i
        lines.append(line)
        size += len(line)
        i += 1
    return "".join(lines)[:total]


TOOLS = [
    {"name": name, "description": "fake " + name, "inputSchema": {"type": "object"}}
    for name in ["echo", "big", "blocks", "slow", "stubborn", "progress", "ask", "notify", "crash",
                 "garbage", "silent", "raw", "flood", "scribble"]
]

WAITING_TOOLS = {"slow", "stubborn", "progress", "ask", "silent"}


def call_tool(rid, params):
    name = params.get("name")
    args = params.get("arguments") or {}
    if name == "echo":
        send({"jsonrpc": "2.0", "id": rid, "result": text_result(args.get("text", ""))})
    elif name == "big":
        result = text_result(numbered(int(args["bytes"]), bool(args.get("varied"))), bool(args.get("is_error")))
        send({"jsonrpc": "2.0", "id": rid, "result": result})
    elif name == "blocks":
        result = {
            "content": [
                {"type": "text", "text": numbered(int(args["bytes"]), bool(args.get("varied")))},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            ],
            "structuredContent": {"rows": [i for i in range(int(args.get("rows", 3)))]},
        }
        send({"jsonrpc": "2.0", "id": rid, "result": result})
    elif name == "slow":
        deadline = time.time() + float(args.get("seconds", 1))
        while time.time() < deadline:
            if rid in cancelled:
                return
            time.sleep(0.02)
        send({"jsonrpc": "2.0", "id": rid, "result": text_result("slow done")})
    elif name == "stubborn":
        time.sleep(float(args.get("seconds", 1)))
        send({"jsonrpc": "2.0", "id": rid, "result": text_result("stubborn done")})
    elif name == "progress":
        token = (params.get("_meta") or {}).get("progressToken")
        end = time.time() + float(args.get("seconds", 1))
        step = 0
        while time.time() < end:
            time.sleep(0.2)
            step += 1
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": step}})
        send({"jsonrpc": "2.0", "id": rid, "result": text_result("progress done")})
    elif name == "ask":
        sid = "s-%s" % rid
        send({"jsonrpc": "2.0", "id": sid, "method": "sampling/createMessage",
              "params": {"messages": [], "maxTokens": 5}})
        with reply_arrived:
            reply_arrived.wait_for(lambda: sid in replies, timeout=10)
        reply = replies.get(sid, {})
        send({"jsonrpc": "2.0", "id": rid, "result": text_result("client said " + json.dumps(reply))})
    elif name == "notify":
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "data": args.get("text", "")}})
        send({"jsonrpc": "2.0", "id": rid, "result": text_result("notified")})
    elif name == "crash":
        log("boom")
        sys.stdout.flush()
        import os
        os._exit(3)
    elif name == "garbage":
        write_raw("this is not json at all")
        write_raw('{"jsonrpc": "2.0", "id": %s, "result": {"content": [{"type": "te' % json.dumps(rid))
    elif name == "silent":
        pass
    elif name == "raw":
        text = json.dumps(numbered(int(args.get("bytes", 0))))
        for line in args.get("lines", []):
            write_raw(line.replace("$ID", json.dumps(rid)).replace("$TEXT", text))
    elif name == "flood":
        data = "n" * int(args["bytes"])
        for i in range(int(args["count"])):
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "data": data}})
            log("flooded %d" % (i + 1))
        send({"jsonrpc": "2.0", "id": rid, "result": text_result("flood done")})
    elif name == "scribble":
        chunk = "x" * 65536
        left = int(args["bytes"])
        while left > 0:
            sys.stderr.write(chunk[:left])
            left -= len(chunk)
        sys.stderr.flush()
        send({"jsonrpc": "2.0", "id": rid, "result": text_result("scribbled")})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "unknown tool " + str(name)}})


def handle(message):
    method = message.get("method")
    rid = message.get("id")
    log("got %s" % (method if method else "answer " + json.dumps(rid)))
    if method is None:
        with reply_arrived:
            replies[rid] = message.get("result")
            reply_arrived.notify_all()
        return
    resources = bool(os.environ.get("FAKE_RESOURCES"))
    if method == "initialize":
        capabilities = {"tools": {"listChanged": True}}
        if resources:
            capabilities["resources"] = {"listChanged": False}
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": capabilities,
            "serverInfo": {"name": "fake", "version": "1.0"}}})
    elif resources and method == "resources/list":
        cursor = (message.get("params") or {}).get("cursor")
        if cursor is None:
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "resources": [{"uri": "fake://a", "name": "a"}], "nextCursor": "r2"}})
        elif cursor == "empty":
            send({"jsonrpc": "2.0", "id": rid, "result": {"resources": [], "nextCursor": ""}})
        elif cursor == "r2":
            send({"jsonrpc": "2.0", "id": rid, "result": {"resources": [{"uri": "fake://b", "name": "b"}]}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "bad cursor " + str(cursor)}})
    elif resources and method == "resources/read":
        uri = (message.get("params") or {}).get("uri")
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "contents": [{"uri": uri, "mimeType": "text/plain", "text": "fake content of " + str(uri)}]}})
    elif resources and method == "resources/templates/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "resourceTemplates": [{"uriTemplate": "fake://{name}", "name": "fake"}]}})
    elif method == "tools/list":
        cursor = (message.get("params") or {}).get("cursor")
        if cursor is None:
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS[:5], "nextCursor": "page2"}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS[5:]}})
    elif method == "tools/call":
        params = message.get("params") or {}
        if params.get("name") in WAITING_TOOLS:
            threading.Thread(target=call_tool, args=(rid, params), daemon=True).start()
        else:
            call_tool(rid, params)
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif method == "notifications/cancelled":
        request = (message.get("params") or {}).get("requestId")
        cancelled.add(request)
        log("cancelled %s" % json.dumps(request))
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no " + method}})


def main():
    import os
    import signal
    mode = os.environ.get("FAKE_MODE", "")
    log("pid %d" % os.getpid())
    if mode == "clingy":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if mode == "deaf":
        while True:
            time.sleep(60)
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line))
    log("stdin closed")
    if mode == "clingy":
        while True:
            time.sleep(60)


if __name__ == "__main__":
    main()
