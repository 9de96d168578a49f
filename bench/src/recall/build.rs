//! Build output: cargo, make with CMake, maven, eslint, docker build,
//! terragrunt, npm.

use super::corpus::{Case, Family};
use super::synth::spots;
use super::synth::{Gen, clock_time, pad, w};
use crate::corpus::KIB;

pub(super) fn cases() -> Vec<Case> {
    vec![
        cargo_build(
            "cargo build --workspace --keep-going -v (small)",
            11,
            90 * KIB,
        ),
        cargo_build("cargo build --workspace --keep-going -v", 12, 1536 * KIB),
        make_cmake(13, 700 * KIB),
        maven(14, 900 * KIB),
        eslint(15, 400 * KIB),
        docker_build(16, 350 * KIB),
        terragrunt(17, 1200 * KIB),
        npm_ci(18, 260 * KIB),
        npm_workspaces(19, 600 * KIB),
    ]
}

const CRATES: &[&str] = &[
    "serde",
    "serde_json",
    "tokio",
    "hyper",
    "rustls",
    "ring",
    "regex",
    "aho-corasick",
    "memchr",
    "syn",
    "quote",
    "proc-macro2",
    "futures-util",
    "tracing",
    "tracing-subscriber",
    "h2",
    "http",
    "bytes",
    "mio",
    "socket2",
    "libc",
    "parking_lot",
    "once_cell",
    "chrono",
    "uuid",
    "sqlx-core",
    "sqlx-postgres",
    "tower",
    "axum",
    "prost",
    "tonic",
    "clap",
    "anyhow",
    "thiserror",
    "rand",
    "getrandom",
    "indexmap",
    "hashbrown",
    "smallvec",
    "url",
    "idna",
    "base64",
    "sha2",
    "time",
];
const WORKSPACE: &[&str] = &[
    "ledger", "catalog", "search", "notify", "auth", "storage", "shipping", "pricing",
];
const MODULES: &[&str] = &[
    "lib", "config", "handlers", "model", "repo", "routes", "state", "worker", "metrics", "util",
];
const IDENTS: &[&str] = &[
    "retries", "cursor", "tenant", "deadline", "batch", "offset", "snapshot", "started", "guard",
];

/// `cargo build -v --keep-going` of a workspace: compiler invocations and
/// warnings, with two errors in two crates.
fn cargo_build(name: &str, seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.0, 1.0);
    w!(g, "    Updating crates.io index");
    w!(g, "  Downloaded 214 crates (21.4 MB) in 3.12s");
    g.fill(at[0], cargo_filler);
    g.lines(&[
        "error[E0308]: mismatched types",
        "   --> crates/billing/src/invoice.rs:214:31",
        "    |",
        "214 |     let total: u64 = compute_total(&items)?;",
        "    |                ---   ^^^^^^^^^^^^^^^^^^^^^^^ expected `u64`, found `Decimal`",
        "    |                |",
        "    |                expected due to this",
        "    |",
        "help: you can convert a `Decimal` to a `u64` and panic if the converted value doesn't fit",
        "    |",
        "214 |     let total: u64 = compute_total(&items)?.try_into().unwrap();",
        "    |                                           ++++++++++++++++++++",
        "",
        "error: could not compile `billing` (lib) due to 1 previous error; 3 warnings emitted",
    ]);
    g.needle("error[E0308]: mismatched types");
    g.needle("crates/billing/src/invoice.rs:214:31");
    g.needle("expected `u64`, found `Decimal`");
    g.fill(at[1], cargo_filler);
    g.lines(&[
        "error[E0599]: no method named `retry_after` found for struct `reqwest::Response` in the current scope",
        "  --> crates/sync/src/client.rs:88:14",
        "   |",
        "88 |         resp.retry_after().unwrap_or(DEFAULT_BACKOFF)",
        "   |              ^^^^^^^^^^^ method not found in `Response`",
        "",
        "error: could not compile `sync` (lib) due to 1 previous error",
    ]);
    g.needle("error[E0599]: no method named `retry_after` found for struct `reqwest::Response`");
    g.needle("crates/sync/src/client.rs:88:14");
    g.fill(1.0, cargo_filler);
    w!(g, "error: 2 crates failed to compile; 187 built");
    g.exit_code = 101;
    g.finish(name, Family::Build)
}

fn cargo_filler(g: &mut Gen) {
    let roll = g.rng.index(10);
    if roll < 7 {
        let krate = *g.rng.pick(CRATES);
        let ver = format!(
            "{}.{}.{}",
            g.rng.range(0, 3),
            g.rng.range(0, 40),
            g.rng.range(0, 30)
        );
        let under = krate.replace('-', "_");
        let (meta, extra) = (g.rng.hex(16), g.rng.hex(16));
        w!(g, "   Compiling {krate} v{ver}");
        w!(
            g,
            "     Running `/home/runner/.rustup/toolchains/1.77.0-x86_64-unknown-linux-gnu/bin/rustc \
             --crate-name {under} --edition=2021 \
             /home/runner/.cargo/registry/src/index.crates.io-6f17d22bba15001f/{krate}-{ver}/src/lib.rs \
             --error-format=json --json=diagnostic-rendered-ansi,artifacts,future-incompat \
             --crate-type lib --emit=dep-info,metadata,link -C opt-level=3 -C embed-bitcode=no \
             --cfg 'feature=\"default\"' --cfg 'feature=\"std\"' -C metadata={meta} \
             -C extra-filename=-{extra} --out-dir /home/runner/work/shop/shop/target/release/deps \
             -L dependency=/home/runner/work/shop/shop/target/release/deps --cap-lints allow`"
        );
        return;
    }
    let krate = *g.rng.pick(WORKSPACE);
    let file = format!("crates/{krate}/src/{}.rs", g.rng.pick(MODULES));
    let count = g.rng.range(1, 5);
    for _ in 0..count {
        let line = g.rng.range(3, 900) as usize;
        let width = line.to_string().len();
        let p = pad(width);
        match g.rng.index(3) {
            0 => {
                w!(g, "warning: unused import: `std::collections::HashMap`");
                w!(g, "{p}--> {file}:{line}:5");
                w!(g, "{p} |");
                w!(g, "{line} | use std::collections::HashMap;");
                w!(g, "{p} |     ^^^^^^^^^^^^^^^^^^^^^^^^^");
                w!(g, "{p} |");
                w!(g, "{p} = note: `#[warn(unused_imports)]` on by default");
            }
            1 => {
                let id = *g.rng.pick(IDENTS);
                let marks = "^".repeat(id.len());
                w!(g, "warning: unused variable: `{id}`");
                w!(g, "{p}--> {file}:{line}:13");
                w!(g, "{p} |");
                w!(g, "{line} |         let {id} = self.config.{id}.clone();");
                w!(
                    g,
                    "{p} |             {marks} help: if this is intentional, prefix it with an underscore: `_{id}`"
                );
            }
            _ => {
                w!(
                    g,
                    "warning: use of deprecated associated function `chrono::NaiveDateTime::from_timestamp_opt`: use `DateTime::from_timestamp` instead"
                );
                w!(g, "{p}--> {file}:{line}:34");
                w!(g, "{p} |");
                w!(
                    g,
                    "{line} |         let at = NaiveDateTime::from_timestamp_opt(secs, 0)?;"
                );
                w!(
                    g,
                    "{p} |                                  ^^^^^^^^^^^^^^^^^^"
                );
                w!(g, "{p} |");
                w!(g, "{p} = note: `#[warn(deprecated)]` on by default");
            }
        }
        w!(g, "");
    }
    w!(
        g,
        "warning: `{krate}` (lib) generated {count} warning{} (run `cargo fix --lib -p {krate}` to apply {count} suggestion{})",
        if count == 1 { "" } else { "s" },
        if count == 1 { "" } else { "s" },
    );
}

const CPP_DIRS: &[&str] = &[
    "core",
    "storage",
    "query",
    "planner",
    "codec",
    "replication",
    "metrics",
    "util",
    "http",
];
const CPP_FILES: &[&str] = &[
    "buffer",
    "arena",
    "btree",
    "page_cache",
    "wal",
    "lexer",
    "parser",
    "optimizer",
    "varint",
    "lz4_frame",
    "raft_log",
    "snapshot",
    "histogram",
    "string_view",
    "router",
    "session",
];

/// `cmake --build . -- -k -j8` of a C++ project: progress lines, warnings
/// with include chains, a compile error and a link error.
fn make_cmake(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.0, 1.0);
    g.lines(&[
        "-- The CXX compiler identification is GNU 13.2.0",
        "-- Detecting CXX compiler ABI info - done",
        "-- Found Boost: /usr/lib/x86_64-linux-gnu/cmake/Boost-1.83.0/BoostConfig.cmake (found version \"1.83.0\")",
        "-- Configuring done (1.4s)",
        "-- Generating done (0.2s)",
        "-- Build files have been written to: /home/ci/src/engine/build",
    ]);
    g.fill(at[0], make_filler);
    g.lines(&[
        "[ 47%] Building CXX object src/net/CMakeFiles/net.dir/socket.cpp.o",
        "/home/ci/src/engine/src/net/socket.cpp: In member function 'void net::Socket::set_options(const net::Options&)':",
        "/home/ci/src/engine/src/net/socket.cpp:233:18: error: 'class asio::basic_stream_socket<asio::ip::tcp>' has no member named 'set_nodelay'",
        "  233 |         socket_.set_nodelay(opts.nodelay);",
        "      |                 ^~~~~~~~~~~",
        "make[2]: *** [src/net/CMakeFiles/net.dir/build.make:76: src/net/CMakeFiles/net.dir/socket.cpp.o] Error 1",
        "make[1]: *** [CMakeFiles/Makefile2:1432: src/net/CMakeFiles/net.dir/all] Error 2",
    ]);
    g.needle("src/net/socket.cpp:233:18: error: 'class asio::basic_stream_socket<asio::ip::tcp>' has no member named 'set_nodelay'");
    g.fill(at[1], make_filler);
    g.lines(&[
        "[ 81%] Linking CXX executable ../bin/engine-server",
        "/usr/bin/ld: CMakeFiles/engine-server.dir/main.cpp.o: in function `main':",
        "main.cpp:(.text.startup+0x1a4): undefined reference to `telemetry::init(telemetry::Config const&)'",
        "collect2: error: ld returned 1 exit status",
        "make[2]: *** [src/server/CMakeFiles/engine-server.dir/build.make:131: bin/engine-server] Error 1",
        "make[1]: *** [CMakeFiles/Makefile2:1688: src/server/CMakeFiles/engine-server.dir/all] Error 2",
    ]);
    g.needle("undefined reference to `telemetry::init(telemetry::Config const&)'");
    g.fill(1.0, make_filler);
    w!(g, "make: *** [Makefile:146: all] Error 2");
    g.exit_code = 2;
    g.finish("cmake --build build -- -k -j8", Family::Build)
}

fn make_filler(g: &mut Gen) {
    let pct = (g.out.len() * 100 / g.size).min(99);
    let dir = *g.rng.pick(CPP_DIRS);
    let file = *g.rng.pick(CPP_FILES);
    if g.rng.chance(0.85) {
        w!(
            g,
            "[{pct:3}%] Building CXX object src/{dir}/CMakeFiles/{dir}.dir/{file}.cpp.o"
        );
        return;
    }
    if g.rng.chance(0.3) {
        w!(g, "[{pct:3}%] Linking CXX static library lib{dir}.a");
        w!(g, "[{pct:3}%] Built target {dir}");
        return;
    }
    let line = g.rng.range(20, 2000);
    let other = *g.rng.pick(CPP_FILES);
    w!(
        g,
        "[{pct:3}%] Building CXX object src/{dir}/CMakeFiles/{dir}.dir/{file}.cpp.o"
    );
    w!(
        g,
        "In file included from /home/ci/src/engine/src/{dir}/{file}.cpp:12:"
    );
    w!(
        g,
        "/home/ci/src/engine/include/engine/{dir}/{other}.h: In instantiation of 'void engine::{dir}::{other}<T>::reserve(std::size_t) [with T = long unsigned int]':"
    );
    w!(
        g,
        "/home/ci/src/engine/src/{dir}/{file}.cpp:{line}:27:   required from here"
    );
    w!(
        g,
        "/home/ci/src/engine/include/engine/{dir}/{other}.h:88:23: warning: comparison of integer expressions of different signedness: 'int' and 'std::size_t' {{aka 'long unsigned int'}} [-Wsign-compare]"
    );
    w!(g, "   88 |         for (int i = 0; i < n; ++i) {{");
    w!(g, "      |                         ~~^~~");
}

const MVN_MODULES: &[&str] = &[
    "common-model",
    "common-web",
    "catalog-service",
    "inventory-service",
    "orders-service",
    "payments-service",
    "shipping-service",
    "notifications-service",
    "gateway",
    "admin-api",
];
const MVN_ARTIFACTS: &[(&str, &str)] = &[
    ("org/springframework/spring-core/6.1.4", "spring-core-6.1.4"),
    (
        "org/springframework/boot/spring-boot-autoconfigure/3.2.3",
        "spring-boot-autoconfigure-3.2.3",
    ),
    (
        "com/fasterxml/jackson/core/jackson-databind/2.16.1",
        "jackson-databind-2.16.1",
    ),
    (
        "org/hibernate/orm/hibernate-core/6.4.4.Final",
        "hibernate-core-6.4.4.Final",
    ),
    (
        "io/micrometer/micrometer-core/1.12.3",
        "micrometer-core-1.12.3",
    ),
    ("org/postgresql/postgresql/42.7.2", "postgresql-42.7.2"),
    (
        "org/junit/jupiter/junit-jupiter-api/5.10.2",
        "junit-jupiter-api-5.10.2",
    ),
    ("org/mockito/mockito-core/5.10.0", "mockito-core-5.10.0"),
    (
        "io/netty/netty-handler/4.1.107.Final",
        "netty-handler-4.1.107.Final",
    ),
];
const JAVA_CLASSES: &[&str] = &[
    "OrderServiceTest",
    "CartControllerTest",
    "PriceCalculatorTest",
    "SkuParserTest",
    "ShipmentMapperTest",
    "WebhookSignatureTest",
    "RetryPolicyTest",
    "TenantResolverTest",
];

/// `mvn -fae -B verify` of a multi-module reactor: downloads, compiles,
/// surefire runs; one compilation error and one test failure in the middle,
/// the reactor summary at the end.
fn maven(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.12, 0.8);
    g.lines(&[
        "[INFO] Scanning for projects...",
        "[INFO] ------------------------------------------------------------------------",
        "[INFO] Reactor Build Order:",
    ]);
    g.fill(at[0], maven_filler);
    g.lines(&[
        "[INFO] --- compiler:3.11.0:compile (default-compile) @ orders-service ---",
        "[INFO] Compiling 214 source files with javac [debug release 17] to target/classes",
        "[INFO] -------------------------------------------------------------",
        "[ERROR] COMPILATION ERROR : ",
        "[INFO] -------------------------------------------------------------",
        "[ERROR] /home/runner/work/shop/shop/orders-service/src/main/java/com/acme/orders/OrderMapper.java:[57,38] cannot find symbol",
        "  symbol:   method getTenantId()",
        "  location: variable order of type com.acme.orders.model.Order",
        "[INFO] 1 error",
        "[INFO] -------------------------------------------------------------",
    ]);
    g.needle("OrderMapper.java:[57,38] cannot find symbol");
    g.needle("symbol:   method getTenantId()");
    g.fill(at[1], maven_filler);
    g.lines(&[
        "[INFO] Running com.acme.payments.RefundServiceTest",
        "[ERROR] Tests run: 48, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 2.114 s <<< FAILURE! -- in com.acme.payments.RefundServiceTest",
        "[ERROR] com.acme.payments.RefundServiceTest.refundsPartialCapture -- Time elapsed: 0.031 s <<< FAILURE!",
        "org.opentest4j.AssertionFailedError: expected: <4250> but was: <4500>",
        "\tat org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)",
        "\tat org.junit.jupiter.api.AssertEquals.assertEquals(AssertEquals.java:166)",
        "\tat com.acme.payments.RefundServiceTest.refundsPartialCapture(RefundServiceTest.java:88)",
        "",
        "[INFO] Results:",
        "[INFO] ",
        "[ERROR] Failures: ",
        "[ERROR]   RefundServiceTest.refundsPartialCapture:88 expected: <4250> but was: <4500>",
        "[INFO] ",
        "[ERROR] Tests run: 412, Failures: 1, Errors: 0, Skipped: 3",
    ]);
    g.needle("com.acme.payments.RefundServiceTest.refundsPartialCapture");
    g.needle("expected: <4250> but was: <4500>");
    g.fill(1.0, maven_filler);
    g.lines(&[
        "[INFO] ------------------------------------------------------------------------",
        "[INFO] Reactor Summary for shop 2.14.0-SNAPSHOT:",
        "[INFO] ",
        "[INFO] common-model ....................................... SUCCESS [  4.112 s]",
        "[INFO] orders-service ..................................... FAILURE [  3.871 s]",
        "[INFO] payments-service ................................... FAILURE [ 41.203 s]",
        "[INFO] BUILD FAILURE",
        "[INFO] ------------------------------------------------------------------------",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project orders-service: Compilation failure",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project payments-service: There are test failures.",
    ]);
    g.needle("on project payments-service: There are test failures.");
    g.exit_code = 1;
    g.finish("mvn -B -fae verify", Family::Build)
}

fn maven_filler(g: &mut Gen) {
    match g.rng.index(12) {
        0..=6 => {
            let (path, file) = *g.rng.pick(MVN_ARTIFACTS);
            let ext = if g.rng.chance(0.5) { "pom" } else { "jar" };
            w!(
                g,
                "Downloading from central: https://repo.maven.apache.org/maven2/{path}/{file}.{ext}"
            );
            let kb = g.rng.range(2, 900);
            let speed = g.rng.range(40, 9000);
            w!(
                g,
                "Downloaded from central: https://repo.maven.apache.org/maven2/{path}/{file}.{ext} ({kb} kB at {speed} kB/s)"
            );
        }
        7 => {
            let module = *g.rng.pick(MVN_MODULES);
            let n = g.rng.range(1, 11);
            w!(g, "[INFO] ");
            w!(g, "[INFO] {:-^72}", format!("< com.acme:{module} >"));
            w!(
                g,
                "[INFO] Building {module} 2.14.0-SNAPSHOT{:>30}",
                format!("[{n}/10]")
            );
            w!(g, "[INFO]   from {module}/pom.xml");
            w!(
                g,
                "[INFO] --------------------------------[ jar ]---------------------------------"
            );
        }
        _ => {
            let class = *g.rng.pick(JAVA_CLASSES);
            let pkg = *g
                .rng
                .pick(&["catalog", "inventory", "shipping", "gateway", "common"]);
            let runs = g.rng.range(3, 60);
            let ms = g.rng.range(5, 4000);
            w!(g, "[INFO] Running com.acme.{pkg}.{class}");
            w!(
                g,
                "[INFO] Tests run: {runs}, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: {}.{:03} s -- in com.acme.{pkg}.{class}",
                ms / 1000,
                ms % 1000
            );
        }
    }
}

const ESLINT_WARNINGS: &[&str] = &[
    "warning  'useMemo' is defined but never used                                                        @typescript-eslint/no-unused-vars",
    "warning  Unexpected any. Specify a different type                                                   @typescript-eslint/no-explicit-any",
    "warning  React Hook useEffect has a missing dependency: 'load'. Either include it or remove the dependency array  react-hooks/exhaustive-deps",
    "warning  Unexpected console statement                                                               no-console",
    "warning  Forbidden non-null assertion                                                               @typescript-eslint/no-non-null-assertion",
    "warning  Prefer using an optional chain expression instead, as it's more concise and easier to read  @typescript-eslint/prefer-optional-chain",
];
const TS_DIRS: &[&str] = &[
    "components/Cart",
    "components/Header",
    "components/ProductCard",
    "pages/account",
    "pages/search",
    "hooks",
    "lib/api",
    "lib/format",
    "store/slices",
    "features/reviews",
    "features/wishlist",
];
const TS_FILES: &[&str] = &[
    "index",
    "CartItem",
    "useDebounce",
    "client",
    "currency",
    "selectors",
    "Modal",
    "Form",
    "List",
];

/// `npx eslint .` on a large front end: thousands of warnings, two errors.
fn eslint(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.0, 1.0);
    g.fill(at[0], eslint_filler);
    g.lines(&[
        "",
        "/home/runner/work/web/web/src/checkout/submitOrder.ts",
        "   41:3   warning  Unexpected console statement                                                               no-console",
        "   88:5   error    Promises must be awaited, end with a call to .catch, end with a call to .then with a rejection handler or be explicitly marked as ignored with the `void` operator  @typescript-eslint/no-floating-promises",
    ]);
    g.needle("/home/runner/work/web/web/src/checkout/submitOrder.ts");
    g.needle("88:5   error    Promises must be awaited");
    g.fill(at[1], eslint_filler);
    g.lines(&[
        "",
        "/home/runner/work/web/web/src/features/payments/usePaymentIntent.ts",
        "  17:24  error    'clientSecret' is possibly 'undefined'  @typescript-eslint/no-unsafe-argument",
    ]);
    g.needle("/home/runner/work/web/web/src/features/payments/usePaymentIntent.ts");
    g.fill(1.0, eslint_filler);
    g.lines(&[
        "",
        "✖ 4123 problems (2 errors, 4121 warnings)",
        "  0 errors and 311 warnings potentially fixable with the `--fix` option.",
    ]);
    g.needle("✖ 4123 problems (2 errors, 4121 warnings)");
    g.exit_code = 1;
    g.finish("npx eslint .", Family::Build)
}

fn eslint_filler(g: &mut Gen) {
    let dir = *g.rng.pick(TS_DIRS);
    let file = *g.rng.pick(TS_FILES);
    let ext = if g.rng.chance(0.6) { "tsx" } else { "ts" };
    w!(g, "");
    w!(
        g,
        "/home/runner/work/web/web/src/{dir}/{file}{}.{ext}",
        g.rng.range(0, 40)
    );
    let mut line = 1;
    for _ in 0..g.rng.range(1, 6) {
        line += g.rng.range(1, 60);
        let col = g.rng.range(1, 40);
        let msg = *g.rng.pick(ESLINT_WARNINGS);
        w!(g, "  {:>6}  {msg}", format!("{line}:{col}"));
    }
}

const GO_PKGS: &[&str] = &[
    "internal/cart",
    "internal/catalog",
    "internal/checkout",
    "internal/pricing",
    "internal/store",
    "internal/auth",
    "internal/webhook",
    "internal/search",
    "pkg/money",
    "pkg/retry",
];
const GO_TESTS: &[&str] = &[
    "TestAddItem",
    "TestRemoveItem",
    "TestParseSKU",
    "TestRoundHalfEven",
    "TestSignPayload",
    "TestBackoffJitter",
    "TestListProducts",
    "TestQueryBuilder",
    "TestTokenExpiry",
    "TestMigrate",
];
const GO_MODULES: &[(&str, &str)] = &[
    ("github.com/jackc/pgx/v5", "v5.5.4"),
    ("github.com/go-chi/chi/v5", "v5.0.12"),
    ("golang.org/x/sync", "v0.6.0"),
    ("google.golang.org/grpc", "v1.62.1"),
    ("github.com/prometheus/client_golang", "v1.19.0"),
    ("go.opentelemetry.io/otel", "v1.24.0"),
    ("github.com/stretchr/testify", "v1.9.0"),
    ("github.com/redis/go-redis/v9", "v9.5.1"),
];

/// `docker build --progress=plain .` whose test stage runs `go test -v`:
/// the failing test is deep in the step's output, the summary at the end
/// shows only the step's last lines.
fn docker_build(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.25, 0.85);
    g.lines(&[
        "#0 building with \"default\" instance using docker driver",
        "",
        "#1 [internal] load build definition from Dockerfile",
        "#1 transferring dockerfile: 1.42kB done",
        "#1 DONE 0.0s",
        "",
        "#2 [internal] load metadata for docker.io/library/golang:1.22-bookworm",
        "#2 DONE 1.2s",
        "",
        "#5 [builder 1/7] FROM docker.io/library/golang:1.22-bookworm@sha256:5c7c2c9f1a3b1e5bd6a2e0f3c8e1f4a9d2b7c6e5f4a3b2c1d0e9f8a7b6c5d4e3",
        "#5 DONE 0.0s",
        "",
        "#8 [builder 4/7] RUN go mod download",
    ]);
    let mut t = 0.4f64;
    for _ in 0..60 {
        let (m, v) = *g.rng.pick(GO_MODULES);
        t += g.rng.frac(0.01, 0.3);
        w!(g, "#8 {t:.3} go: downloading {m} {v}");
    }
    g.lines(&["#8 DONE 24.1s", "", "#10 [test 6/7] RUN go test -v ./..."]);
    let mut t = 0.5f64;
    let mut step = |g: &mut Gen, line: &str| {
        t += g.rng.frac(0.0, 0.02);
        w!(g, "#10 {t:.3} {line}");
    };
    let filler = |g: &mut Gen, step: &mut dyn FnMut(&mut Gen, &str)| {
        let test = *g.rng.pick(GO_TESTS);
        let sub = g.rng.range(1, 40);
        step(g, &format!("=== RUN   {test}/case_{sub:02}"));
        if g.rng.chance(0.2) {
            let pkg = *g.rng.pick(GO_PKGS);
            step(
                g,
                &format!(
                    "    {test}: fixtures.go:41: loaded fixture {pkg}/testdata/case_{sub:02}.json"
                ),
            );
        }
        let ms = g.rng.range(0, 90);
        step(g, &format!("--- PASS: {test}/case_{sub:02} (0.{ms:02}s)"));
        if g.rng.chance(0.02) {
            let pkg = *g.rng.pick(GO_PKGS);
            let (secs, ms) = (g.rng.range(0, 9), g.rng.range(0, 1000));
            step(
                g,
                &format!("ok  \tgithub.com/acme/shop/{pkg}\t{secs}.{ms:03}s"),
            );
        }
    };
    g.fill(at[0], |g| filler(g, &mut step));
    for line in [
        "=== RUN   TestCartTotals/discount_stacking",
        "    cart_test.go:88: total = 4500, want 4250 (codes SPRING10+LOYAL5 must stack)",
        "--- FAIL: TestCartTotals/discount_stacking (0.00s)",
        "--- FAIL: TestCartTotals (0.01s)",
        "FAIL",
        "FAIL\tgithub.com/acme/shop/internal/cart\t0.412s",
    ] {
        step(&mut g, line);
    }
    g.needle("--- FAIL: TestCartTotals/discount_stacking");
    g.needle("cart_test.go:88: total = 4500, want 4250");
    g.fill(0.995, |g| filler(g, &mut step));
    g.lines(&[
        "#10 ERROR: process \"/bin/sh -c go test -v ./...\" did not complete successfully: exit code: 1",
        "------",
        " > [test 6/7] RUN go test -v ./...:",
        "41.27 --- PASS: TestQueryBuilder/case_07 (0.00s)",
        "41.27 ok  \tgithub.com/acme/shop/internal/search\t1.208s",
        "41.28 FAIL",
        "------",
        "Dockerfile:18",
        "--------------------",
        "  16 |     COPY . .",
        "  17 |     FROM builder AS test",
        "  18 | >>> RUN go test -v ./...",
        "  19 |     ",
        "  20 |     FROM gcr.io/distroless/static-debian12",
        "--------------------",
        "ERROR: failed to solve: process \"/bin/sh -c go test -v ./...\" did not complete successfully: exit code: 1",
    ]);
    g.needle("ERROR: failed to solve: process \"/bin/sh -c go test -v ./...\" did not complete successfully: exit code: 1");
    g.exit_code = 1;
    g.finish("docker build --progress=plain -t shop:ci .", Family::Build)
}

const TF_UNITS: &[&str] = &[
    "live/prod/network",
    "live/prod/eks",
    "live/prod/rds",
    "live/prod/redis",
    "live/prod/s3",
    "live/prod/iam",
    "live/prod/dns",
    "live/prod/monitoring",
];
const TF_RESOURCES: &[&str] = &[
    "aws_route_table_association.private",
    "aws_subnet.private",
    "aws_security_group_rule.ingress",
    "aws_iam_role_policy_attachment.node",
    "aws_eks_node_group.workers",
    "aws_s3_bucket_policy.logs",
    "aws_route53_record.api",
    "aws_cloudwatch_metric_alarm.cpu",
    "aws_db_parameter_group.this",
    "aws_elasticache_parameter_group.this",
    "aws_kms_alias.this",
    "aws_nat_gateway.this",
];

/// `terragrunt run-all plan` over a whole environment: thousands of
/// refresh lines, two units fail in the middle while others plan on.
fn terragrunt(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.15, 0.85);
    g.fill(at[0], terragrunt_filler);
    let t = clock_time(g.tick(100, 900));
    for line in [
        "╷",
        "│ Error: Unsupported argument",
        "│ ",
        "│   on main.tf line 42, in resource \"aws_db_instance\" \"main\":",
        "│   42:   storage_throughput = var.storage_throughput",
        "│ ",
        "│ An argument named \"storage_throughput\" is not expected here.",
        "╵",
    ] {
        w!(g, "{t}.217 STDERR [live/prod/rds] tofu: {line}");
    }
    g.needle("Error: Unsupported argument");
    g.needle("on main.tf line 42, in resource \"aws_db_instance\" \"main\":");
    g.fill(at[1], terragrunt_filler);
    let t = clock_time(g.tick(100, 900));
    for line in [
        "╷",
        "│ Error: reading IAM Role (prod-eks-node-role): operation error IAM: GetRole, https response error StatusCode: 403, RequestID: 8f1c2e7a-4b1d-4c55-9a0e-2f7d1b6c3e90, api error AccessDenied: User: arn:aws:sts::123456789012:assumed-role/ci-deployer/gha-run-8231197365 is not authorized to perform: iam:GetRole on resource: role prod-eks-node-role because no identity-based policy allows the iam:GetRole action",
        "│ ",
        "│   with aws_iam_role.node,",
        "│   on iam.tf line 12, in resource \"aws_iam_role\" \"node\":",
        "│   12: resource \"aws_iam_role\" \"node\" {",
        "╵",
    ] {
        w!(g, "{t}.904 STDERR [live/prod/eks] tofu: {line}");
    }
    g.needle("is not authorized to perform: iam:GetRole on resource: role prod-eks-node-role");
    g.fill(1.0, terragrunt_filler);
    let t = clock_time(g.tick(100, 900));
    w!(g, "{t}.012 ERROR  error occurred:");
    w!(g, "");
    w!(
        g,
        "* Failed to execute \"tofu plan -input=false -lock-timeout=20m\" in ./live/prod/rds/.terragrunt-cache/b3Jk2x/qS1f"
    );
    w!(
        g,
        "* Failed to execute \"tofu plan -input=false -lock-timeout=20m\" in ./live/prod/eks/.terragrunt-cache/Zp9aQe/Xk2m"
    );
    g.needle("Failed to execute \"tofu plan -input=false -lock-timeout=20m\" in ./live/prod/rds");
    g.exit_code = 1;
    g.finish("terragrunt run-all plan", Family::Build)
}

fn terragrunt_filler(g: &mut Gen) {
    let t = clock_time(g.tick(5, 300));
    let ms = g.rng.range(0, 1000);
    let unit = *g.rng.pick(TF_UNITS);
    let res = *g.rng.pick(TF_RESOURCES);
    let idx = g.rng.range(0, 6);
    let module = *g
        .rng
        .pick(&["vpc", "cluster", "db", "cache", "buckets", "alarms"]);
    match g.rng.index(20) {
        0 => {
            w!(
                g,
                "{t}.{ms:03} STDOUT [{unit}] tofu:   # module.{module}.{res}[{idx}] will be updated in-place"
            );
            w!(
                g,
                "{t}.{ms:03} STDOUT [{unit}] tofu:   ~ resource \"{}\" \"{}\" {{",
                res.split('.').next().unwrap_or(res),
                res.split('.').nth(1).unwrap_or("this")
            );
            w!(g, "{t}.{ms:03} STDOUT [{unit}] tofu:       ~ tags_all = {{");
            w!(
                g,
                "{t}.{ms:03} STDOUT [{unit}] tofu:           + \"cost-center\" = \"platform\""
            );
            w!(g, "{t}.{ms:03} STDOUT [{unit}] tofu:         }}");
            w!(g, "{t}.{ms:03} STDOUT [{unit}] tofu:     }}");
        }
        1 => {
            let (a, c, d) = (g.rng.range(0, 5), g.rng.range(0, 20), g.rng.range(0, 3));
            w!(
                g,
                "{t}.{ms:03} STDOUT [{unit}] tofu: Plan: {a} to add, {c} to change, {d} to destroy."
            );
        }
        _ => {
            let id = g.rng.hex(17);
            w!(
                g,
                "{t}.{ms:03} STDOUT [{unit}] tofu: module.{module}.{res}[{idx}]: Refreshing state... [id=rtbassoc-{id}]"
            );
        }
    }
}

const NPM_PACKAGES: &[(&str, &str)] = &[
    ("@babel/core", "7.24.0"),
    ("@babel/parser", "7.24.0"),
    ("react", "18.2.0"),
    ("react-dom", "18.2.0"),
    ("typescript", "5.4.2"),
    ("webpack", "5.90.3"),
    ("lodash", "4.17.21"),
    ("eslint", "8.57.0"),
    ("@types/node", "20.11.25"),
    ("postcss", "8.4.35"),
    ("zod", "3.22.4"),
    ("@tanstack/react-query", "5.25.0"),
    ("date-fns", "3.3.1"),
    ("axios", "1.6.7"),
    ("esbuild", "0.20.1"),
    ("rollup", "4.12.1"),
    ("vitest", "1.3.1"),
    ("jest-worker", "29.7.0"),
];

/// `npm ci --loglevel verbose`: thousands of fetches; sharp's install
/// script fails and the `npm ERR!` block closes the log.
fn npm_ci(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.3, 0.7);
    g.lines(&[
        "npm verb cli /usr/local/bin/node /usr/local/bin/npm",
        "npm info using npm@10.2.4",
        "npm info using node@v20.11.1",
        "npm verb title npm ci",
        "npm verb argv \"ci\" \"--loglevel\" \"verbose\"",
        "npm verb logfile logs-max:10 dir:/root/.npm/_logs/2024-03-11T14_00_00_012Z-",
    ]);
    g.fill(at[0], npm_fetch);
    g.lines(&[
        "npm WARN ERESOLVE overriding peer dependency",
        "npm WARN While resolving: react-beautiful-dnd@13.1.1",
        "npm WARN Found: react@18.2.0",
        "npm WARN Could not resolve dependency:",
        "npm WARN peer react@\"^16.8.5 || ^17.0.0\" from react-beautiful-dnd@13.1.1",
    ]);
    g.needle("peer react@\"^16.8.5 || ^17.0.0\" from react-beautiful-dnd@13.1.1");
    g.fill(0.985, npm_fetch);
    g.lines(&[
        "npm info run sharp@0.33.2 install node_modules/sharp node install/check",
        "npm info run sharp@0.33.2 install { code: 1, signal: null }",
        "npm verb stack Error: command failed",
        "npm verb stack     at ChildProcess.<anonymous> (/usr/local/lib/node_modules/npm/node_modules/@npmcli/promise-spawn/lib/index.js:53:27)",
        "npm verb pkgid sharp@0.33.2",
        "npm ERR! code 1",
        "npm ERR! path /app/node_modules/sharp",
        "npm ERR! command failed",
        "npm ERR! command sh -c node install/check",
        "npm ERR! sharp: Downloading https://github.com/lovell/sharp-libvips/releases/download/v8.15.1/libvips-8.15.1-linux-x64.tar.br",
        "npm ERR! sharp: Installation error: unable to get local issuer certificate",
        "npm verb exit 1",
        "npm verb code 1",
        "",
        "npm ERR! A complete log of this run can be found in: /root/.npm/_logs/2024-03-11T14_00_00_012Z-debug-0.log",
    ]);
    g.needle("npm ERR! path /app/node_modules/sharp");
    g.needle("sharp: Installation error: unable to get local issuer certificate");
    g.exit_code = 1;
    g.finish("npm ci --loglevel verbose", Family::Npm)
}

fn npm_fetch(g: &mut Gen) {
    let (name, ver) = *g.rng.pick(NPM_PACKAGES);
    let base = name.rsplit('/').next().unwrap_or(name);
    let escaped = name.replace('/', "%2f");
    let ms = g.rng.range(8, 900);
    if g.rng.chance(0.03) {
        w!(
            g,
            "npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory. Do not use it. Check out lru-cache if you want a good and tested way to coalesce async requests by a key value, which is much more comprehensive and powerful."
        );
        return;
    }
    let cache = if g.rng.chance(0.7) {
        "cache miss"
    } else {
        "cache revalidated"
    };
    w!(
        g,
        "npm http fetch GET 200 https://registry.npmjs.org/{escaped}/-/{base}-{ver}.tgz {ms}ms ({cache})"
    );
}

/// `npm run build --workspaces` in a monorepo: webpack's module lists for
/// each package; one package fails to resolve an import and npm goes on.
fn npm_workspaces(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.2, 0.8);
    g.lines(&[
        "",
        "> @acme/ui-kit@3.2.0 build",
        "> tsup src/index.ts --format esm,cjs --dts",
        "",
        "CLI Building entry: src/index.ts",
        "ESM dist/index.mjs     142.31 KB",
        "CJS dist/index.js      151.02 KB",
        "DTS ⚡️ Build success in 4213ms",
    ]);
    g.fill(at[0], webpack_filler);
    g.lines(&[
        "",
        "ERROR in ./src/routes/Invoices.tsx 14:0-52",
        "Module not found: Error: Can't resolve '@acme/ui-kit/DataGrid' in '/app/packages/admin/src/routes'",
        " @ ./src/routes/index.tsx 9:0-38 31:13-21",
        " @ ./src/main.tsx 6:0-34 14:32-38",
        "",
        "webpack 5.90.3 compiled with 1 error in 48213 ms",
        "npm ERR! Lifecycle script `build` failed with error: ",
        "npm ERR! Error: command failed ",
        "npm ERR!   in workspace: @acme/admin@1.0.0 ",
        "npm ERR!   at location: /app/packages/admin ",
        "",
        "> @acme/storefront@4.7.1 build",
        "> webpack --mode production",
        "",
    ]);
    g.needle("ERROR in ./src/routes/Invoices.tsx 14:0-52");
    g.needle("Can't resolve '@acme/ui-kit/DataGrid' in '/app/packages/admin/src/routes'");
    g.needle("npm ERR!   in workspace: @acme/admin@1.0.0");
    g.fill(1.0, webpack_filler);
    w!(g, "webpack 5.90.3 compiled successfully in 51877 ms");
    g.exit_code = 1;
    g.finish("npm run build --workspaces --if-present", Family::Npm)
}

fn webpack_filler(g: &mut Gen) {
    let (name, _) = *g.rng.pick(NPM_PACKAGES);
    let file = *g.rng.pick(&[
        "index.js",
        "lib/utils.js",
        "dist/esm/index.js",
        "cjs/production.min.js",
        "lib/parse.js",
        "build/core.js",
        "dist/module.mjs",
    ]);
    let size = g.rng.range(200, 90_000);
    if g.rng.chance(0.02) {
        let hash = g.rng.hex(20);
        w!(
            g,
            "asset {hash}.js {} KiB [emitted] [immutable] [minimized] (id hint: vendors) 1 related asset",
            size / 100
        );
        return;
    }
    if size > 1024 {
        w!(
            g,
            "  ./node_modules/{name}/{file} {:.1} KiB [built] [code generated]",
            size as f64 / 1024.0
        );
    } else {
        w!(
            g,
            "  ./node_modules/{name}/{file} {size} bytes [built] [code generated]"
        );
    }
}
