//! Failures as other tools print them: a `docker build` whose stage fails,
//! gradle with a Java `Caused by`, webpack and tsc/eslint with code frames,
//! pip's resolver conflict, psql's `ERROR`/`DETAIL`/`HINT`, a Go race
//! report, a training log with warnings and a traceback, a pytest run with
//! one failure section, and `find` over a tree it may not read. The needles
//! are what a model needs to act: the message, the file and line, the
//! assertion, not only the failure word.

use super::corpus::{Case, Family};
use super::synth::{Gen, spots, w};
use crate::corpus::KIB;

pub(super) fn cases() -> Vec<Case> {
    vec![
        docker_build(61, 300 * KIB),
        gradle(62, 600 * KIB),
        webpack(63, 250 * KIB),
        tsc_eslint(64, 200 * KIB),
        pip_resolver(65, 120 * KIB),
        psql(66, 400 * KIB),
        go_race(67, 350 * KIB),
        training(68, 900 * KIB),
        find_denied(70, 800 * KIB),
    ]
}

/// `docker build --progress=plain .`: stages run in parallel, the build
/// stage's `tsc` fails while the deps stage goes on, then the summary.
fn docker_build(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.35, 0.6);
    g.lines(&[
        "#0 building with \"default\" instance using docker driver",
        "#1 [internal] load build definition from Dockerfile",
        "#1 transferring dockerfile: 1.02kB done",
        "#1 DONE 0.0s",
    ]);
    let pip = |g: &mut Gen| {
        let t = g.tick(10, 90) as f64 / 1000.0;
        let pkg = *g.rng.pick(&[
            "numpy",
            "pandas",
            "scipy",
            "pyarrow",
            "orjson",
            "httpx",
            "pydantic_core",
            "uvloop",
        ]);
        let v = g.rng.range(1, 30);
        w!(
            g,
            "#9 {t:.3} Downloading {pkg}-{v}.{}.0-cp311-cp311-manylinux_2_17_x86_64.whl ({}.{} MB)",
            g.rng.range(0, 9),
            g.rng.range(1, 40),
            g.rng.range(0, 9)
        );
        w!(
            g,
            "#9 {t:.3}    ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ {}.{}/{}.{} MB {} MB/s eta 0:00:00",
            g.rng.range(1, 40),
            g.rng.range(0, 9),
            g.rng.range(1, 40),
            g.rng.range(0, 9),
            g.rng.range(5, 90)
        );
    };
    g.fill(at[0], pip);
    g.lines(&[
        "#12 [build 6/9] RUN npm run build",
        "#12 2.184 > web@1.4.0 build",
        "#12 2.184 > tsc -p tsconfig.build.json && vite build",
        "#12 9.871 src/api/client.ts(42,7): error TS2339: Property 'retryAfter' does not exist on type 'RateLimitError'.",
        "#12 9.874 src/api/client.ts(57,19): error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.",
        "#12 ERROR: process \"/bin/sh -c npm run build\" did not complete successfully: exit code: 2",
    ]);
    g.needle("src/api/client.ts(42,7): error TS2339: Property 'retryAfter' does not exist on type 'RateLimitError'.");
    g.needle("src/api/client.ts(57,19): error TS2345");
    g.fill(0.97, pip);
    g.lines(&[
        "#9 CANCELED",
        "------",
        " > [build 6/9] RUN npm run build:",
        "2.184 > tsc -p tsconfig.build.json && vite build",
        "------",
        "Dockerfile:18",
        "--------------------",
        "  16 |     COPY . .",
        "  17 |     ",
        "  18 | >>> RUN npm run build",
        "  19 |     ",
        "--------------------",
        "ERROR: failed to solve: process \"/bin/sh -c npm run build\" did not complete successfully: exit code: 2",
    ]);
    g.needle("18 | >>> RUN npm run build");
    g.exit_code = 1;
    g.finish("docker build --progress=plain .", Family::Build)
}

/// `./gradlew build --info`: the test task's failure with its `Caused by`
/// chain in the middle, the build goes on with other modules.
fn gradle(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.3, 0.6);
    let info = |g: &mut Gen| {
        let m = *g
            .rng
            .pick(&[":core", ":api", ":billing", ":web", ":worker"]);
        match g.rng.index(4) {
            0 => w!(g, "> Task {m}:compileJava UP-TO-DATE"),
            1 => w!(
                g,
                "Skipping task '{m}:processResources' as it is up-to-date."
            ),
            2 => w!(
                g,
                "Caching disabled for task '{m}:test' because: Build cache is disabled"
            ),
            _ => w!(
                g,
                "Gradle Test Executor {} started executing tests. {m} OrderServiceTest > testCase{}() PASSED",
                g.rng.range(1, 9),
                g.rng.range(1, 400)
            ),
        }
    };
    g.fill(at[0], info);
    g.lines(&[
        "> Task :billing:test",
        "",
        "InvoiceServiceTest > issuesInvoiceForPaidOrder() FAILED",
        "    org.springframework.dao.DataIntegrityViolationException: could not execute statement; SQL [n/a]; constraint [invoices_order_id_key]",
        "        at org.springframework.orm.jpa.vendor.HibernateJpaDialect.convertHibernateAccessException(HibernateJpaDialect.java:290)",
        "        at org.springframework.orm.jpa.vendor.HibernateJpaDialect.translateExceptionIfPossible(HibernateJpaDialect.java:241)",
        "        at com.acme.billing.InvoiceService.issue(InvoiceService.java:88)",
        "        at com.acme.billing.InvoiceServiceTest.issuesInvoiceForPaidOrder(InvoiceServiceTest.java:54)",
        "",
        "        Caused by:",
        "        org.hibernate.exception.ConstraintViolationException: could not execute statement",
        "            at org.hibernate.exception.internal.SQLStateConversionDelegate.convert(SQLStateConversionDelegate.java:95)",
        "",
        "            Caused by:",
        "            org.postgresql.util.PSQLException: ERROR: duplicate key value violates unique constraint \"invoices_order_id_key\"",
        "              Detail: Key (order_id)=(917) already exists.",
        "                at org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse(QueryExecutorImpl.java:2713)",
        "",
    ]);
    g.needle("InvoiceServiceTest > issuesInvoiceForPaidOrder() FAILED");
    g.needle("com.acme.billing.InvoiceService.issue(InvoiceService.java:88)");
    g.needle("Key (order_id)=(917) already exists.");
    g.fill(0.95, info);
    g.lines(&[
        "214 tests completed, 1 failed",
        "",
        "> Task :billing:test FAILED",
        "",
        "FAILURE: Build failed with an exception.",
        "",
        "* What went wrong:",
        "Execution failed for task ':billing:test'.",
        "> There were failing tests. See the report at: file:///app/billing/build/reports/tests/test/index.html",
        "",
        "BUILD FAILED in 2m 41s",
    ]);
    g.exit_code = 1;
    g.finish("./gradlew build --info", Family::Build)
}

/// `npx webpack --mode production --stats verbose`: module lines, one
/// module that fails to parse with its code frame, more modules after.
fn webpack(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.3, 0.6);
    let module = |g: &mut Gen| {
        let dir = *g
            .rng
            .pick(&["components", "pages", "hooks", "lib", "store"]);
        let kb = g.rng.range(1, 60);
        w!(
            g,
            "    ./src/{dir}/{}{}.tsx {kb}.{} KiB [built] [code generated]",
            g.rng.alnum(6),
            g.rng.range(1, 99),
            g.rng.range(0, 9)
        );
    };
    g.fill(at[0], module);
    g.lines(&[
        "",
        "ERROR in ./src/pages/Checkout.tsx 118:24",
        "Module parse failed: Unexpected token (118:24)",
        "File was processed with these loaders:",
        " * ./node_modules/babel-loader/lib/index.js",
        "You may need an additional loader to handle the result of these loaders.",
        "|     const total = useCart(s => s.total);",
        ">     return <Summary total={total} coupon={coupon?.code ?? } />;",
        "|   }",
        "",
    ]);
    g.needle("ERROR in ./src/pages/Checkout.tsx 118:24");
    g.needle("Module parse failed: Unexpected token (118:24)");
    g.fill(0.97, module);
    g.lines(&["", "webpack 5.90.3 compiled with 1 error in 48213 ms"]);
    g.exit_code = 1;
    g.finish(
        "npx webpack --mode production --stats verbose",
        Family::Build,
    )
}

/// `npm run lint && npm run typecheck` in a monorepo: eslint's codeframe
/// output with warnings everywhere, one error, then tsc's pretty output.
fn tsc_eslint(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.2, 0.7);
    let warn = |g: &mut Gen| {
        let n = g.rng.range(2, 400);
        w!(
            g,
            "warning: Unexpected console statement (no-console) at src/{}/{}.ts:{n}:5:",
            g.rng.pick(&["lib", "api", "ui"]),
            g.rng.alnum(7)
        );
        w!(g, "  {} |   const x = load();", n - 1);
        w!(g, "> {n} |   console.log(x);");
        w!(g, "    |   ^");
        w!(g, "");
    };
    g.fill(at[0], warn);
    g.lines(&[
        "error: Promises must be awaited, end with a call to .catch, or be explicitly marked as ignored with the `void` operator (@typescript-eslint/no-floating-promises) at src/billing/retry.ts:31:3:",
        "  29 | export function scheduleRetry(job: Job) {",
        "  30 |   const delay = backoff(job.attempts);",
        "> 31 |   queue.add(job, { delay });",
        "    |   ^",
        "  32 | }",
        "",
    ]);
    g.needle("(@typescript-eslint/no-floating-promises) at src/billing/retry.ts:31:3");
    g.needle("> 31 |   queue.add(job, { delay });");
    g.fill(at[1], warn);
    g.lines(&[
        "",
        "src/billing/invoice.ts:77:11 - error TS2322: Type 'number | undefined' is not assignable to type 'number'.",
        "  Type 'undefined' is not assignable to type 'number'.",
        "",
        "77     const cents: number = order.totalCents;",
        "             ~~~~~",
        "",
    ]);
    g.needle("src/billing/invoice.ts:77:11 - error TS2322");
    g.fill(0.97, warn);
    g.lines(&["", "Found 1 error in src/billing/invoice.ts:77", ""]);
    g.exit_code = 2;
    g.finish("npm run lint && npm run typecheck", Family::Build)
}

/// `pip install -r requirements.txt`: downloads, then the resolver's
/// backtracking and its conflict.
fn pip_resolver(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.4, 0.6);
    let collect = |g: &mut Gen| {
        let pkg = *g.rng.pick(&[
            "boto3",
            "botocore",
            "s3transfer",
            "urllib3",
            "requests",
            "certifi",
            "idna",
            "charset-normalizer",
            "jmespath",
        ]);
        let v = format!(
            "{}.{}.{}",
            g.rng.range(1, 3),
            g.rng.range(0, 40),
            g.rng.range(0, 120)
        );
        w!(
            g,
            "INFO: pip is looking at multiple versions of {pkg} to determine which version is compatible with other requirements. This could take a while."
        );
        w!(
            g,
            "  Downloading {pkg}-{v}-py3-none-any.whl.metadata ({}.{} kB)",
            g.rng.range(1, 9),
            g.rng.range(0, 9)
        );
        w!(
            g,
            "Collecting {pkg}<2.0,>=1.{} (from -r requirements.txt (line {}))",
            g.rng.range(0, 30),
            g.rng.range(1, 40)
        );
    };
    g.fill(at[0], collect);
    g.lines(&[
        "ERROR: Cannot install -r requirements.txt (line 12) and urllib3==2.2.1 because these package versions have conflicting dependencies.",
        "",
        "The conflict is caused by:",
        "    The user requested urllib3==2.2.1",
        "    botocore 1.29.165 depends on urllib3<1.27 and >=1.25.4",
        "",
        "To fix this you could try to:",
        "1. loosen the range of package versions you've specified",
        "2. remove package versions to allow pip attempt to solve the dependency conflict",
        "",
    ]);
    g.needle("botocore 1.29.165 depends on urllib3<1.27 and >=1.25.4");
    g.needle("ERROR: Cannot install -r requirements.txt (line 12) and urllib3==2.2.1");
    g.fill(0.98, collect);
    g.lines(&["ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts"]);
    g.exit_code = 1;
    g.finish("pip install -r requirements.txt", Family::Npm)
}

/// `psql -f migrate.sql`: thousands of statements' tags, two errors with
/// their `LINE`, `DETAIL` and `HINT`.
fn psql(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.15, 0.85);
    let tag = |g: &mut Gen| match g.rng.index(5) {
        0 => w!(g, "CREATE INDEX"),
        1 => w!(g, "ALTER TABLE"),
        2 => w!(g, "UPDATE {}", g.rng.range(0, 5000)),
        _ => w!(g, "INSERT 0 {}", g.rng.range(1, 3)),
    };
    g.fill(at[0], tag);
    let n = g.rng.range(400, 900);
    w!(
        g,
        "psql:migrate.sql:{n}: ERROR:  insert or update on table \"invoices\" violates foreign key constraint \"invoices_customer_id_fkey\""
    );
    g.lines(&["DETAIL:  Key (customer_id)=(40412) is not present in table \"customers\"."]);
    g.needle("violates foreign key constraint \"invoices_customer_id_fkey\"");
    g.needle("Key (customer_id)=(40412) is not present in table \"customers\".");
    g.fill(at[1], tag);
    let n = g.rng.range(1000, 1500);
    w!(
        g,
        "psql:migrate.sql:{n}: ERROR:  column \"totl_cents\" does not exist"
    );
    g.lines(&[
        "LINE 1: UPDATE orders SET totl_cents = total_cents * 100 WHERE curr...",
        "                          ^",
        "HINT:  Perhaps you meant to reference the column \"orders.total_cents\".",
    ]);
    g.needle("ERROR:  column \"totl_cents\" does not exist");
    g.needle("HINT:  Perhaps you meant to reference the column \"orders.total_cents\".");
    g.fill(1.0, tag);
    g.exit_code = 3;
    g.finish("psql -v ON_ERROR_STOP=0 -f migrate.sql", Family::ServerLog)
}

/// `go test -race ./...`: verbose runs of many packages, one data race
/// in the middle with its two goroutines' frames.
fn go_race(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.3, 0.6);
    let run = |g: &mut Gen| {
        let name = format!(
            "Test{}{}",
            g.rng.pick(&["Parse", "Encode", "Route", "Store", "Fetch"]),
            g.rng.range(1, 900)
        );
        w!(g, "=== RUN   {name}");
        w!(g, "--- PASS: {name} (0.{:02}s)", g.rng.range(0, 99));
    };
    g.fill(at[0], run);
    g.lines(&[
        "=== RUN   TestSessionCacheConcurrent",
        "==================",
        "WARNING: DATA RACE",
        "Write at 0x00c0001a4f90 by goroutine 41:",
        "  runtime.mapassign_faststr()",
        "      /usr/local/go/src/runtime/map_faststr.go:203 +0x0",
        "  github.com/acme/gateway/session.(*Cache).Store()",
        "      /home/runner/work/gateway/gateway/session/cache.go:64 +0x1d0",
        "  github.com/acme/gateway/session.TestSessionCacheConcurrent.func2()",
        "      /home/runner/work/gateway/gateway/session/cache_test.go:88 +0x9c",
        "",
        "Previous read at 0x00c0001a4f90 by goroutine 40:",
        "  runtime.mapaccess2_faststr()",
        "      /usr/local/go/src/runtime/map_faststr.go:117 +0x0",
        "  github.com/acme/gateway/session.(*Cache).Lookup()",
        "      /home/runner/work/gateway/gateway/session/cache.go:41 +0x84",
        "",
        "Goroutine 41 (running) created at:",
        "  testing.(*T).Run()",
        "      /usr/local/go/src/testing/testing.go:1742 +0x825",
        "==================",
        "    testing.go:1398: race detected during execution of test",
        "--- FAIL: TestSessionCacheConcurrent (0.03s)",
    ]);
    g.needle("/home/runner/work/gateway/gateway/session/cache.go:64");
    g.needle("/home/runner/work/gateway/gateway/session/cache.go:41");
    g.needle("--- FAIL: TestSessionCacheConcurrent");
    g.fill(0.97, run);
    g.lines(&[
        "FAIL",
        "FAIL\tgithub.com/acme/gateway/session\t1.912s",
        "ok  \tgithub.com/acme/gateway/router\t0.412s",
        "FAIL",
    ]);
    g.exit_code = 1;
    g.finish(
        "go test -race -count=1 ./internal/cache/...",
        Family::TestRun,
    )
}

/// A training run's log: step lines, warnings from the libraries, then a
/// traceback when an evaluation step fails; the launcher goes on.
fn training(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.2, 0.7);
    let step = |g: &mut Gen| {
        g.n += 1;
        let loss = 2.5 - (g.n as f64).ln() / 10.0;
        w!(
            g,
            "{{'loss': {loss:.4}, 'grad_norm': {:.3}, 'learning_rate': 1.9e-05, 'epoch': {:.2}}}",
            g.rng.frac(0.2, 3.0),
            g.n as f64 / 4000.0
        );
        if g.rng.chance(0.02) {
            w!(
                g,
                "/opt/conda/lib/python3.11/site-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly."
            );
            w!(g, "  warnings.warn(");
        }
    };
    g.fill(at[0], step);
    g.lines(&[
        "/opt/conda/lib/python3.11/site-packages/transformers/tokenization_utils_base.py:1601: FutureWarning: `clean_up_tokenization_spaces` was not set. It will be set to `True` by default.",
    ]);
    g.needle("FutureWarning: `clean_up_tokenization_spaces` was not set");
    g.fill(at[1], step);
    g.lines(&[
        "Traceback (most recent call last):",
        "  File \"/workspace/train.py\", line 212, in <module>",
        "    main()",
        "  File \"/workspace/train.py\", line 198, in main",
        "    metrics = evaluate(model, eval_loader)",
        "  File \"/workspace/eval.py\", line 57, in evaluate",
        "    scores = compute_bleu(preds, refs)",
        "  File \"/opt/conda/lib/python3.11/site-packages/sacrebleu/compat.py\", line 35, in corpus_bleu",
        "    return metric.corpus_score(hypotheses, references)",
        "  File \"/opt/conda/lib/python3.11/site-packages/sacrebleu/metrics/base.py\", line 415, in corpus_score",
        "    self._check_corpus_score_args(hypotheses, references)",
        "  File \"/opt/conda/lib/python3.11/site-packages/sacrebleu/metrics/base.py\", line 258, in _check_corpus_score_args",
        "    raise TypeError(f'{prefix}: {err_msg}')",
        "TypeError: BLEU: `refs` should be a sequence of sequence of strings.",
        "[rank0]: worker 0 exited; restarting from checkpoint-4000 (attempt 2/3)",
    ]);
    g.needle("File \"/workspace/eval.py\", line 57, in evaluate");
    g.needle("TypeError: BLEU: `refs` should be a sequence of sequence of strings.");
    g.fill(1.0, step);
    g.finish(
        "python train.py --config configs/mt5-base.yaml",
        Family::Progress,
    )
}

/// `find / -name '*.pem' 2>&1`: paths, and a few directories it may not
/// read among them.
fn find_denied(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.2, 0.8);
    let path = |g: &mut Gen| {
        let root = *g.rng.pick(&[
            "/usr/share/ca-certificates/mozilla",
            "/usr/lib/python3/dist-packages/certifi",
            "/opt/app/node_modules/.cache",
            "/home/dev/projects/api/certs",
            "/snap/core22/1380/etc/ssl/certs",
        ]);
        w!(g, "{root}/{}_{}.pem", g.rng.alnum(10), g.rng.range(1, 9999));
    };
    g.fill(at[0], path);
    g.lines(&["find: '/etc/ssl/private': Permission denied"]);
    g.needle("find: '/etc/ssl/private': Permission denied");
    g.fill(at[1], path);
    g.lines(&["find: '/var/lib/docker/volumes/vault_data/_data/tls': Permission denied"]);
    g.needle("'/var/lib/docker/volumes/vault_data/_data/tls': Permission denied");
    g.fill(1.0, path);
    g.exit_code = 1;
    g.finish("find / -name '*.pem'", Family::Grep)
}
