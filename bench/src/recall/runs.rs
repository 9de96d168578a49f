//! Test runs: thousands of passes, a few failures with their assertion text.

use super::corpus::{Case, Family};
use super::synth::spots;
use super::synth::{Gen, iso, w};
use crate::corpus::KIB;

pub(super) fn cases() -> Vec<Case> {
    vec![
        pytest_verbose(21, 1200 * KIB),
        pytest_xdist(22, 500 * KIB),
        jest(23, 800 * KIB),
        go_test(24, 650 * KIB),
        go_test_race(25, 300 * KIB),
        cargo_test_ci(26, 2 * 1024 * KIB),
    ]
}

const PY_MODULES: &[&str] = &[
    "accounts/test_models",
    "accounts/test_views",
    "catalog/test_search",
    "catalog/test_import",
    "orders/test_checkout",
    "orders/test_invoices",
    "shipping/test_rates",
    "shipping/test_labels",
    "notifications/test_email",
    "api/test_pagination",
    "api/test_throttling",
    "core/test_utils",
];
const PY_TESTS: &[&str] = &[
    "test_create",
    "test_update_partial",
    "test_list_filters",
    "test_permissions",
    "test_serializer_roundtrip",
    "test_invalid_payload",
    "test_soft_delete",
    "test_ordering",
    "test_unicode_names",
    "test_timezone_aware",
    "test_bulk_import",
    "test_export_csv",
];
const PY_PARAMS: &[&str] = &[
    "",
    "[basic]",
    "[admin]",
    "[anonymous]",
    "[eur]",
    "[usd]",
    "[jpy]",
];

fn pytest_header(g: &mut Gen, collected: u64) {
    g.lines(&[
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.8, pytest-8.1.1, pluggy-1.4.0 -- /usr/local/bin/python",
        "cachedir: .pytest_cache",
        "django: version: 5.0.3, settings: shop.settings.test (from ini)",
        "rootdir: /app",
        "configfile: pyproject.toml",
        "plugins: anyio-4.3.0, django-4.8.0, cov-4.1.0, xdist-3.5.0",
    ]);
    w!(g, "collecting ... collected {collected} items");
    w!(g, "");
}

fn py_test_id(g: &mut Gen) -> String {
    let module = *g.rng.pick(PY_MODULES);
    let test = *g.rng.pick(PY_TESTS);
    let param = *g.rng.pick(PY_PARAMS);
    format!("tests/{module}.py::{test}_{}{param}", g.rng.range(1, 60))
}

/// `pytest -v` of a Django project: 6000 verbose result lines with two
/// failures among them, then the failure details with captured logs, the
/// warnings summary and the short summary.
fn pytest_verbose(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.1, 0.45);
    pytest_header(&mut g, 6214);
    let pass_line = |g: &mut Gen| {
        let id = py_test_id(g);
        let pct = (g.out.len() * 100 / (g.size * 55 / 100)).min(100);
        let status = if g.rng.chance(0.005) {
            "SKIPPED (needs redis)"
        } else {
            "PASSED"
        };
        w!(g, "{:<70} [{pct:3}%]", format!("{id} {status}"));
    };
    g.fill(at[0], pass_line);
    w!(
        g,
        "{:<70} [ 22%]",
        "tests/payments/test_refunds.py::test_refund_partial_capture[eur] FAILED"
    );
    g.needle("tests/payments/test_refunds.py::test_refund_partial_capture[eur]");
    g.fill(at[1], pass_line);
    w!(
        g,
        "{:<70} [ 39%]",
        "tests/search/test_indexer.py::test_reindex_batches FAILED"
    );
    g.needle("tests/search/test_indexer.py::test_reindex_batches");
    g.fill(0.55, pass_line);
    g.lines(&[
        "",
        "=================================== FAILURES ===================================",
        "_____________________ test_refund_partial_capture[eur] ______________________",
        "",
        "client = <django.test.client.Client object at 0x7f3a2c1d9e50>",
        "order = <Order: ORD-2024-000917 (paid)>",
        "",
        "    def test_refund_partial_capture(client, order):",
        "        resp = client.post(f\"/api/orders/{order.pk}/refunds\", {\"amount\": \"42.50\"})",
        ">       assert resp.status_code == 200",
        "E       assert 402 == 200",
        "E        +  where 402 = <HttpResponse status_code=402, \"application/json\">.status_code",
        "",
        "tests/payments/test_refunds.py:188: AssertionError",
        "------------------------------ Captured log call -------------------------------",
    ]);
    g.needle("tests/payments/test_refunds.py:188: AssertionError");
    let log_line = |g: &mut Gen| {
        let (logger, file, line, msg) = *g.rng.pick(&[
            ("django.db.backends", "utils.py", 151, "(0.001) SELECT \"orders_order\".\"id\", \"orders_order\".\"status\" FROM \"orders_order\" WHERE \"orders_order\".\"id\" = 917 LIMIT 21; args=(917,); alias=default"),
            ("payments.gateway", "gateway.py", 214, "POST https://api.stripe.com/v1/refunds -> 200 (idempotency key rf_917_1)"),
            ("payments.ledger", "ledger.py", 88, "posting entry debit=refunds credit=cash amount=42.50 currency=EUR"),
            ("django.request", "log.py", 241, "Payment Required: /api/orders/917/refunds"),
            ("urllib3.connectionpool", "connectionpool.py", 546, "https://api.stripe.com:443 \"POST /v1/refunds HTTP/1.1\" 200 712"),
        ]);
        let level = if logger == "django.request" {
            "WARNING"
        } else {
            "DEBUG  "
        };
        w!(g, "{level} {logger}:{file}:{line} {msg}");
    };
    g.fill(0.72, log_line);
    g.lines(&[
        "_____________________________ test_reindex_batches _____________________________",
        "",
        "    def test_reindex_batches(es_index):",
        ">       run_reindex(batch_size=500, timeout=30)",
        "",
        "tests/search/test_indexer.py:57: ",
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ",
        "search/indexer.py:131: in run_reindex",
        "    wait_for_refresh(index, deadline)",
        "E   TimeoutError: index catalog-v7 refresh took 31.2s (deadline 30s)",
        "------------------------------ Captured log call -------------------------------",
    ]);
    g.needle("TimeoutError: index catalog-v7 refresh took 31.2s (deadline 30s)");
    g.fill(0.9, log_line);
    g.lines(&["=============================== warnings summary ==============================="]);
    g.fill(0.99, |g| {
        let module = *g.rng.pick(PY_MODULES);
        w!(g, "tests/{module}.py: {} warnings", g.rng.range(1, 40));
        w!(g, "  /usr/local/lib/python3.11/site-packages/rest_framework/pagination.py:207: UnorderedObjectListWarning: Pagination may yield inconsistent results with an unordered object_list: <class 'orders.models.Order'> QuerySet.");
        w!(g, "");
    });
    g.lines(&[
        "-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html",
        "=========================== short test summary info ============================",
        "FAILED tests/payments/test_refunds.py::test_refund_partial_capture[eur] - assert 402 == 200",
        "FAILED tests/search/test_indexer.py::test_reindex_batches - TimeoutError: index catalog-v7 refresh too...",
        "========== 2 failed, 6179 passed, 33 skipped, 412 warnings in 812.44s (0:13:32) ==========",
    ]);
    g.exit_code = 1;
    g.finish("pytest -v", Family::TestRun)
}

/// `pytest -n 8 -v`: xdist's interleaved worker lines, an error at setup
/// (the database refuses connections) in the middle.
fn pytest_xdist(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.15, 0.6);
    pytest_header(&mut g, 4180);
    g.lines(&["created: 8/8 workers", "8 workers [4180 items]", ""]);
    let line = |g: &mut Gen| {
        let worker = g.rng.range(0, 8);
        let pct = (g.out.len() * 100 / (g.size * 80 / 100)).min(100);
        let id = py_test_id(g);
        w!(g, "[gw{worker}] [{pct:3}%] PASSED {id} ");
    };
    g.fill(at[0], line);
    g.lines(&["[gw5] [ 31%] ERROR tests/orders/test_reports.py::test_monthly_revenue_rollup "]);
    g.needle("ERROR tests/orders/test_reports.py::test_monthly_revenue_rollup");
    g.fill(0.8, line);
    g.lines(&[
        "",
        "==================================== ERRORS ====================================",
        "_______________ ERROR at setup of test_monthly_revenue_rollup ________________",
        "[gw5] linux -- Python 3.11.8 /usr/local/bin/python",
        "",
        "    def connect(self, conn_params):",
        ">       return Database.connect(**conn_params)",
        "",
        "/usr/local/lib/python3.11/site-packages/django/db/backends/postgresql/base.py:275: ",
        "E   psycopg.OperationalError: connection failed: connection to server at \"10.0.3.7\", port 5432 failed: FATAL:  sorry, too many clients already",
        "",
    ]);
    g.needle("FATAL:  sorry, too many clients already");
    g.fill(0.99, |g| {
        w!(
            g,
            "/usr/local/lib/python3.11/site-packages/psycopg/connection.py:{}: in connect",
            g.rng.range(700, 760)
        );
        w!(g, "    raise last_ex.with_traceback(None)");
    });
    g.lines(&[
        "=========================== short test summary info ============================",
        "ERROR tests/orders/test_reports.py::test_monthly_revenue_rollup - psycopg.OperationalError: connection failed: connection to server at \"10.0.3.7\", port 5432 fa...",
        "=========== 4179 passed, 1 error in 301.12s (0:05:01) ===========",
    ]);
    g.exit_code = 1;
    g.finish("pytest -n 8 -v", Family::TestRun)
}

const JEST_FILES: &[&str] = &[
    "src/components/Button/Button.test.tsx",
    "src/components/Modal/Modal.test.tsx",
    "src/hooks/useDebounce.test.ts",
    "src/lib/format/currency.test.ts",
    "src/store/cart.test.ts",
    "src/features/search/SearchBox.test.tsx",
    "src/features/reviews/Stars.test.tsx",
    "src/pages/account/Orders.test.tsx",
    "src/lib/api/client.test.ts",
    "src/utils/dates.test.ts",
];
const JEST_TESTS: &[&str] = &[
    "renders the label",
    "calls onClick when pressed",
    "is accessible by role",
    "debounces input",
    "formats negative amounts",
    "handles empty state",
    "shows a spinner while loading",
    "retries once on network error",
    "matches snapshot",
    "closes on Escape",
];

/// `jest --ci --verbose` of a large front end: PASS blocks, React act()
/// warnings, two failing tests with their diffs and code frames.
fn jest(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.0, 1.0);
    g.fill(at[0], jest_filler);
    g.lines(&[
        "FAIL src/checkout/cart.test.ts (7.91 s)",
        "  Cart",
        "    ✓ adds items (3 ms)",
        "    ✕ applies stacked discount codes (12 ms)",
        "",
        "  ● Cart › applies stacked discount codes",
        "",
        "    expect(received).toBe(expected) // Object.is equality",
        "",
        "    Expected: 4250",
        "    Received: 4500",
        "",
        "      86 |     cart.apply(\"SPRING10\");",
        "      87 |     cart.apply(\"LOYAL5\");",
        "    > 88 |     expect(cart.totalCents()).toBe(4250);",
        "         |                               ^",
        "      89 |   });",
        "",
        "      at Object.toBe (src/checkout/cart.test.ts:88:31)",
        "",
    ]);
    g.needle("● Cart › applies stacked discount codes");
    g.needle("at Object.toBe (src/checkout/cart.test.ts:88:31)");
    g.fill(at[1], jest_filler);
    g.lines(&[
        "FAIL src/lib/api/orders.test.ts (12.4 s)",
        "  OrdersApi",
        "    retries on 503",
        "      ✕ gives up after 3 attempts (5003 ms)",
        "",
        "  ● OrdersApi › retries on 503 › gives up after 3 attempts",
        "",
        "    thrown: \"Exceeded timeout of 5000 ms for a test.",
        "    Add a timeout value to this test to increase the timeout, if this is a long-running test. See https://jestjs.io/docs/api#testname-fn-timeout.\"",
        "",
    ]);
    g.needle("● OrdersApi › retries on 503 › gives up after 3 attempts");
    g.fill(1.0, jest_filler);
    g.lines(&[
        "",
        "Test Suites: 2 failed, 611 passed, 613 total",
        "Tests:       2 failed, 7421 passed, 7423 total",
        "Snapshots:   212 passed, 212 total",
        "Time:        214.331 s",
        "Ran all test suites.",
    ]);
    g.exit_code = 1;
    g.finish("jest --ci --verbose", Family::TestRun)
}

fn jest_filler(g: &mut Gen) {
    let file = *g.rng.pick(JEST_FILES);
    let secs = g.rng.range(1, 90);
    w!(g, "PASS {file} ({}.{} s)", secs / 10, secs % 10);
    let suite = file
        .rsplit('/')
        .next()
        .unwrap_or(file)
        .split('.')
        .next()
        .unwrap_or(file);
    w!(g, "  {suite}");
    for _ in 0..g.rng.range(2, 12) {
        let t = *g.rng.pick(JEST_TESTS);
        w!(g, "    ✓ {t} ({} ms)", g.rng.range(1, 80));
    }
    if g.rng.chance(0.25) {
        g.lines(&[
            "",
            "  console.error",
            "    Warning: An update to CartDrawer inside a test was not wrapped in act(...).",
            "",
            "    When testing, code that causes React state updates should be wrapped into act(...):",
            "",
            "      at printWarning (node_modules/react-dom/cjs/react-dom.development.js:86:30)",
            "      at error (node_modules/react-dom/cjs/react-dom.development.js:60:7)",
            "      at warnIfUpdatesNotWrappedWithActDEV (node_modules/react-dom/cjs/react-dom.development.js:27628:9)",
            "",
        ]);
    }
}

/// `go test -v ./...` of a Kubernetes operator: klog lines between runs, one
/// failing subtest.
fn go_test(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.0, 1.0);
    let filler = |g: &mut Gen| {
        let test = *g.rng.pick(&[
            "TestReconcileDeployment",
            "TestReconcileService",
            "TestDefaulting",
            "TestValidateSpec",
            "TestStatusConditions",
            "TestFinalizer",
            "TestScaleSubresource",
            "TestWebhookConversion",
        ]);
        let sub = g.rng.range(1, 50);
        w!(g, "=== RUN   {test}/case_{sub}");
        for _ in 0..g.rng.range(0, 4) {
            let t = g.tick(1, 40);
            let pid = 41213;
            let ns = *g.rng.pick(&["prod", "staging", "default", "team-a"]);
            w!(
                g,
                "I0311 14:{:02}:{:02}.{:06}   {pid} reconcile.go:{}] \"Reconciling\" controller=\"webapp\" namespace=\"{ns}\" name=\"api-{sub}\" reconcileID=\"{}\"",
                t / 60_000 % 60,
                t / 1000 % 60,
                (t % 1000) * 1000 + g.rng.range(0, 1000),
                g.rng.range(60, 140),
                g.rng.hex(8),
            );
        }
        w!(
            g,
            "--- PASS: {test}/case_{sub} (0.0{}s)",
            g.rng.range(0, 10)
        );
    };
    g.lines(&["=== RUN   TestMain", "--- PASS: TestMain (0.00s)"]);
    g.fill(at[0], filler);
    g.lines(&[
        "=== RUN   TestReconcile/drifted_replica_count",
        "    reconcile_test.go:142: replicas = 3, want 5",
        "--- FAIL: TestReconcile (0.41s)",
        "    --- FAIL: TestReconcile/drifted_replica_count (0.03s)",
        "FAIL",
        "FAIL\tgithub.com/acme/operator/internal/controller\t2.114s",
    ]);
    g.needle("--- FAIL: TestReconcile/drifted_replica_count");
    g.needle("reconcile_test.go:142: replicas = 3, want 5");
    g.needle("FAIL\tgithub.com/acme/operator/internal/controller");
    g.fill(1.0, filler);
    g.lines(&[
        "ok  \tgithub.com/acme/operator/internal/webhook\t0.811s",
        "FAIL",
    ]);
    g.exit_code = 1;
    g.finish("go test -v ./...", Family::TestRun)
}

/// `go test -race -v ./...`: a data race report, then a nil dereference
/// panic that kills one package's test binary; other packages go on.
fn go_test_race(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.0, 1.0);
    let filler = |g: &mut Gen| {
        let test = *g.rng.pick(&[
            "TestGetSet",
            "TestTTLExpiry",
            "TestShardDistribution",
            "TestSnapshotRestore",
            "TestEncodeDecode",
            "TestBloomFalsePositives",
            "TestCompaction",
            "TestIterator",
        ]);
        let sub = g.rng.range(1, 200);
        w!(g, "=== RUN   {test}/keys={sub}");
        w!(g, "=== PAUSE {test}/keys={sub}");
        w!(g, "=== CONT  {test}/keys={sub}");
        w!(
            g,
            "--- PASS: {test}/keys={sub} (0.0{}s)",
            g.rng.range(0, 10)
        );
    };
    g.fill(at[0], filler);
    g.lines(&[
        "==================",
        "WARNING: DATA RACE",
        "Write at 0x00c000126f88 by goroutine 23:",
        "  github.com/acme/cache/lru.(*Cache).Put()",
        "      /home/runner/work/cache/cache/lru/lru.go:52 +0x1c4",
        "  github.com/acme/cache/lru.TestConcurrentPut.func1()",
        "      /home/runner/work/cache/cache/lru/lru_test.go:118 +0x8c",
        "",
        "Previous read at 0x00c000126f88 by goroutine 22:",
        "  github.com/acme/cache/lru.(*Cache).Get()",
        "      /home/runner/work/cache/cache/lru/lru.go:38 +0x7a",
        "==================",
        "    testing.go:1398: race detected during execution of test",
        "--- FAIL: TestConcurrentPut (0.02s)",
    ]);
    g.needle("WARNING: DATA RACE");
    g.needle("/home/runner/work/cache/cache/lru/lru.go:52 +0x1c4");
    g.fill(at[1], filler);
    g.lines(&[
        "=== RUN   TestEvictUnderPressure",
        "--- FAIL: TestEvictUnderPressure (0.00s)",
        "panic: runtime error: invalid memory address or nil pointer dereference [recovered]",
        "\tpanic: runtime error: invalid memory address or nil pointer dereference",
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x6b1f2d]",
        "",
        "goroutine 87 [running]:",
        "testing.tRunner.func1.2({0x7a2c40, 0xa8e3b0})",
        "\t/opt/hostedtoolcache/go/1.22.1/x64/src/testing/testing.go:1631 +0x24a",
        "panic({0x7a2c40?, 0xa8e3b0?})",
        "\t/opt/hostedtoolcache/go/1.22.1/x64/src/runtime/panic.go:770 +0x132",
        "github.com/acme/cache/lru.(*Cache).evict(0xc0001a2000)",
        "\t/home/runner/work/cache/cache/lru/lru.go:77 +0x2d",
        "github.com/acme/cache/lru.TestEvictUnderPressure(0xc000183a00)",
        "\t/home/runner/work/cache/cache/lru/lru_test.go:201 +0x11b",
        "FAIL\tgithub.com/acme/cache/lru\t0.412s",
    ]);
    g.needle("panic: runtime error: invalid memory address or nil pointer dereference");
    g.needle("lru/lru.go:77 +0x2d");
    g.fill(1.0, filler);
    g.lines(&["ok  \tgithub.com/acme/cache/shard\t3.201s", "FAIL"]);
    g.exit_code = 1;
    g.finish("go test -race -v ./...", Family::TestRun)
}

/// `cargo test --workspace --no-fail-fast` as a GitHub Actions log: every
/// line timestamped, one panicking test in the middle.
fn cargo_test_ci(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.15, 0.7);
    let stamp = |g: &mut Gen| iso(g.tick(0, 30)).replace('Z', "0000Z");
    let s = stamp(&mut g);
    w!(g, "{s} ##[group]Run cargo test --workspace --no-fail-fast");
    w!(g, "{s} cargo test --workspace --no-fail-fast");
    w!(g, "{s} shell: /usr/bin/bash -e {{0}}");
    w!(g, "{s} ##[endgroup]");
    let filler = |g: &mut Gen| {
        let s = stamp(g);
        let module = *g.rng.pick(&[
            "parser",
            "codec::varint",
            "frame",
            "auth::token",
            "router",
            "session",
            "metrics",
        ]);
        let test = *g.rng.pick(&[
            "roundtrips_random_frames",
            "rejects_oversized_header",
            "parses_empty_body",
            "keeps_order_under_load",
            "expires_idle_sessions",
            "counts_every_byte",
        ]);
        if g.rng.chance(0.01) {
            let bin = g.rng.hex(16);
            w!(
                g,
                "{s}      Running unittests src/lib.rs (target/debug/deps/wire-{bin})"
            );
            w!(g, "{s} ");
            w!(g, "{s} running {} tests", g.rng.range(100, 900));
        } else {
            w!(
                g,
                "{s} test {module}::tests::{test}_{} ... ok",
                g.rng.range(1, 400)
            );
        }
    };
    g.fill(at[0], filler);
    let s = stamp(&mut g);
    for line in [
        "test parser::tests::rejects_truncated_frame ... FAILED",
        "",
        "failures:",
        "",
        "---- parser::tests::rejects_truncated_frame stdout ----",
        "",
        "thread 'parser::tests::rejects_truncated_frame' panicked at crates/wire/src/parser.rs:412:9:",
        "assertion `left == right` failed",
        "  left: Ok(Frame { len: 12, kind: Ping })",
        " right: Err(Truncated { needed: 16, got: 12 })",
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        "",
        "",
        "failures:",
        "    parser::tests::rejects_truncated_frame",
        "",
        "test result: FAILED. 811 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 4.12s",
        "",
        "error: test failed, to rerun pass `-p wire --lib`",
    ] {
        w!(g, "{s} {line}");
    }
    g.needle("thread 'parser::tests::rejects_truncated_frame' panicked at crates/wire/src/parser.rs:412:9:");
    g.needle(" right: Err(Truncated { needed: 16, got: 12 })");
    g.fill(1.0, filler);
    let s = stamp(&mut g);
    w!(g, "{s} error: 1 target failed:");
    w!(g, "{s}     `-p wire --lib`");
    w!(g, "{s} ##[error]Process completed with exit code 101.");
    g.finish(
        "cargo test --workspace --no-fail-fast (GitHub Actions)",
        Family::TestRun,
    )
}
