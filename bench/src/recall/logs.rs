//! Service logs with stack traces, kubectl listings, and progress logs.

use super::corpus::{Case, Family};
use super::synth::spots;
use super::synth::{Gen, age, py_stamp, stamp, uuid, w};
use crate::corpus::{KIB, MIB};

pub(super) fn cases() -> Vec<Case> {
    vec![
        spring(
            "docker logs orders-service --since 2h (short)",
            31,
            200 * KIB,
        ),
        spring("docker logs orders-service --since 24h", 32, 4000 * KIB),
        kafka_consumer(33, 700 * KIB),
        celery(34, 450 * KIB),
        django(35, 300 * KIB),
        compose(36, 900 * KIB),
        kube_events("kubectl get events -A", 37, 120 * KIB),
        kube_events("kubectl get events -A (large cluster)", 38, 2 * MIB),
        kube_pods(39, 400 * KIB),
        wget_progress(40, 3400 * KIB),
        training(41, 1100 * KIB),
    ]
}

const SPRING_THREADS: &[&str] = &[
    "nio-8080-exec-1",
    "nio-8080-exec-4",
    "nio-8080-exec-7",
    "nio-8080-exec-9",
    "scheduling-1",
    "task-3",
    "HikariPool-1 housekeeper",
];

fn spring_line(g: &mut Gen) {
    let ts = stamp(g.tick(1, 400));
    let thread = *g.rng.pick(SPRING_THREADS);
    let tid = g.rng.hex(16);
    match g.rng.index(10) {
        0..=5 => {
            let (verb, path, ctrl) = *g.rng.pick(&[
                ("GET", "/api/orders/", "c.a.orders.web.OrderController"),
                ("GET", "/api/carts/", "c.a.orders.web.CartController"),
                ("POST", "/api/orders/", "c.a.orders.web.OrderController"),
                (
                    "GET",
                    "/api/customers/",
                    "c.a.orders.web.CustomerController",
                ),
                ("PUT", "/api/carts/", "c.a.orders.web.CartController"),
            ]);
            let id = g.rng.range(10_000, 99_999);
            let ms = g.rng.range(2, 240);
            w!(
                g,
                "{ts}  INFO 1 --- [orders-service] [{thread:>15}] [{tid},{}] {ctrl:<40} : {verb} {path}{id} 200 {ms}ms",
                g.rng.hex(16)
            );
        }
        6 | 7 => {
            let id = g.rng.range(10_000, 99_999);
            w!(
                g,
                "{ts} DEBUG 1 --- [orders-service] [{thread:>15}] [{tid},{}] org.hibernate.SQL                        : select o1_0.id,o1_0.customer_id,o1_0.status,o1_0.total_cents from orders o1_0 where o1_0.id=? -- {id}",
                g.rng.hex(16)
            );
        }
        8 => {
            let (a, i) = (g.rng.range(0, 20), g.rng.range(0, 20));
            w!(
                g,
                "{ts} DEBUG 1 --- [orders-service] [HikariPool-1 housekeeper] [,] com.zaxxer.hikari.pool.HikariPool        : HikariPool-1 - Pool stats (total=20, active={a}, idle={i}, waiting=0)"
            );
        }
        _ => {
            w!(
                g,
                "{ts}  WARN 1 --- [orders-service] [{thread:>15}] [{tid},{}] c.a.orders.client.PricingClient          : pricing-service slow response: {}ms (threshold 500ms)",
                g.rng.hex(16),
                g.rng.range(500, 1400)
            );
        }
    }
}

/// Java frames of a Spring MVC request, under the application's own.
const SPRING_FRAMES: &[&str] = &[
    "\tat org.springframework.web.servlet.FrameworkServlet.processRequest(FrameworkServlet.java:1011)",
    "\tat org.springframework.web.servlet.FrameworkServlet.doPost(FrameworkServlet.java:914)",
    "\tat jakarta.servlet.http.HttpServlet.service(HttpServlet.java:590)",
    "\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:885)",
    "\tat jakarta.servlet.http.HttpServlet.service(HttpServlet.java:658)",
    "\tat org.apache.catalina.core.ApplicationFilterChain.internalDoFilter(ApplicationFilterChain.java:205)",
    "\tat org.apache.catalina.core.ApplicationFilterChain.doFilter(ApplicationFilterChain.java:149)",
    "\tat org.springframework.web.filter.RequestContextFilter.doFilterInternal(RequestContextFilter.java:100)",
    "\tat org.springframework.web.filter.OncePerRequestFilter.doFilter(OncePerRequestFilter.java:116)",
    "\tat org.apache.catalina.core.StandardWrapperValve.invoke(StandardWrapperValve.java:167)",
    "\tat org.apache.catalina.core.StandardContextValve.invoke(StandardContextValve.java:90)",
    "\tat org.apache.catalina.core.StandardHostValve.invoke(StandardHostValve.java:115)",
    "\tat org.apache.catalina.connector.CoyoteAdapter.service(CoyoteAdapter.java:344)",
    "\tat org.apache.coyote.http11.Http11Processor.service(Http11Processor.java:391)",
    "\tat org.apache.tomcat.util.net.NioEndpoint$SocketProcessor.doRun(NioEndpoint.java:1744)",
    "\tat org.apache.tomcat.util.threads.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1191)",
    "\tat java.base/java.lang.Thread.run(Thread.java:1583)",
];

/// A Spring Boot service's log: requests, SQL, pool stats; an exception
/// with its stack trace, and later a deadlock as a `Caused by:` chain.
fn spring(name: &str, seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.0, 1.0);
    g.fill(at[0], spring_line);
    let ts = stamp(g.tick(1, 400));
    w!(
        g,
        "{ts} ERROR 1 --- [orders-service] [nio-8080-exec-7] [65f1c2e7a4b1d4c5,9a0e2f7d1b6c3e90] o.a.c.c.C.[.[.[/].[dispatcherServlet]    : Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed: java.lang.IllegalStateException: Inventory reservation expired for sku=ACME-4471-BLK] with root cause"
    );
    w!(g, "");
    g.lines(&[
        "java.lang.IllegalStateException: Inventory reservation expired for sku=ACME-4471-BLK",
        "\tat com.acme.inventory.ReservationService.confirm(ReservationService.java:212)",
        "\tat com.acme.orders.checkout.CheckoutService.placeOrder(CheckoutService.java:131)",
        "\tat com.acme.orders.web.OrderController.create(OrderController.java:77)",
        "\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)",
        "\tat java.base/java.lang.reflect.Method.invoke(Method.java:580)",
    ]);
    g.lines(SPRING_FRAMES);
    g.needle(
        "java.lang.IllegalStateException: Inventory reservation expired for sku=ACME-4471-BLK",
    );
    g.needle("at com.acme.inventory.ReservationService.confirm(ReservationService.java:212)");
    g.fill(at[1], spring_line);
    let ts = stamp(g.tick(1, 400));
    w!(
        g,
        "{ts} ERROR 1 --- [orders-service] [     scheduling-1] [,] c.a.orders.jobs.ExpireCartsJob           : expire-carts run failed, will retry in 60s"
    );
    g.lines(&[
        "org.springframework.dao.CannotAcquireLockException: could not execute statement [ERROR: deadlock detected",
        "  Detail: Process 41213 waits for ShareLock on transaction 99120311; blocked by process 41277.",
        "Process 41277 waits for ShareLock on transaction 99120298; blocked by process 41213.",
        "  Hint: See server log for query details.",
        "  Where: while updating tuple (1822,14) in relation \"cart_items\"] [update cart_items set reserved=false where cart_id=?]",
        "\tat org.springframework.orm.jpa.vendor.HibernateJpaDialect.convertHibernateAccessException(HibernateJpaDialect.java:311)",
        "\tat com.acme.orders.jobs.ExpireCartsJob.run(ExpireCartsJob.java:54)",
        "Caused by: org.postgresql.util.PSQLException: ERROR: deadlock detected",
        "\tat org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse(QueryExecutorImpl.java:2725)",
        "\tat org.postgresql.core.v3.QueryExecutorImpl.processResults(QueryExecutorImpl.java:2412)",
        "\t... 23 common frames omitted",
    ]);
    g.needle("Caused by: org.postgresql.util.PSQLException: ERROR: deadlock detected");
    g.needle(
        "Process 41213 waits for ShareLock on transaction 99120311; blocked by process 41277.",
    );
    g.fill(1.0, spring_line);
    g.finish(name, Family::ServerLog)
}

/// A Kafka consumer's log: commits and fetches; a record too large for the
/// producer, then the consumer leaves the group after a long poll.
fn kafka_consumer(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.0, 1.0);
    let line = |g: &mut Gen| {
        let ts = stamp(g.tick(1, 200));
        let p = g.rng.range(0, 24);
        let offset = 8_812_000 + g.n * 3 + g.rng.range(0, 3);
        g.n += 1;
        if g.rng.chance(0.8) {
            w!(
                g,
                "{ts} INFO  [orders-projector-0-C-1] c.a.p.OrderProjector - applied event OrderLineAdded order=ORD-{} partition=orders-{p} offset={offset} lag={}",
                g.rng.range(100_000, 999_999),
                g.rng.range(0, 40)
            );
        } else {
            w!(
                g,
                "{ts} INFO  [orders-projector-0-C-1] o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=consumer-orders-projector-1, groupId=orders-projector] Committed offset {offset} for partition orders-{p}"
            );
        }
    };
    g.fill(at[0], line);
    let ts = stamp(g.tick(1, 200));
    w!(
        g,
        "{ts} ERROR [kafka-producer-network-thread | projector-dlq] c.a.p.DeadLetterPublisher - failed to publish to orders.dlq"
    );
    g.lines(&[
        "org.apache.kafka.common.errors.RecordTooLargeException: The message is 1538291 bytes when serialized which is larger than 1048576, which is the value of the max.request.size configuration.",
        "\tat org.apache.kafka.clients.producer.KafkaProducer.ensureValidRecordSize(KafkaProducer.java:1161)",
        "\tat org.apache.kafka.clients.producer.KafkaProducer.doSend(KafkaProducer.java:1030)",
        "\tat com.acme.projector.DeadLetterPublisher.publish(DeadLetterPublisher.java:48)",
    ]);
    g.needle("RecordTooLargeException: The message is 1538291 bytes when serialized");
    g.fill(at[1], line);
    let ts = stamp(g.tick(1, 200));
    w!(
        g,
        "{ts} WARN  [kafka-coordinator-heartbeat-thread | orders-projector] o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=consumer-orders-projector-1, groupId=orders-projector] consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records."
    );
    w!(
        g,
        "{ts} INFO  [kafka-coordinator-heartbeat-thread | orders-projector] o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=consumer-orders-projector-1, groupId=orders-projector] Member consumer-orders-projector-1-5b1f0e4c-9d6a-4c1e-8f55-0e2a7b9d3c11 sending LeaveGroup request to coordinator kafka-2.kafka.svc:9092 (id: 2147483645 rack: null) due to consumer poll timeout has expired."
    );
    g.needle("consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms");
    g.fill(1.0, line);
    g.finish(
        "kubectl logs deploy/orders-projector --since=6h",
        Family::ServerLog,
    )
}

/// A Celery worker's log: task receipts and successes; one task fails with
/// a traceback from the HTTP client.
fn celery(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.0, 1.0);
    let line = |g: &mut Gen| {
        let ts = py_stamp(g.tick(1, 300));
        let task = *g.rng.pick(&[
            "billing.tasks.sync_account",
            "billing.tasks.send_invoice",
            "crm.tasks.refresh_contact",
            "search.tasks.reindex_product",
            "mail.tasks.deliver",
        ]);
        let id = uuid(&mut g.rng);
        let worker = g.rng.range(1, 9);
        w!(g, "[{ts}: INFO/MainProcess] Task {task}[{id}] received");
        let secs = g.rng.frac(0.01, 3.0);
        w!(
            g,
            "[{ts}: INFO/ForkPoolWorker-{worker}] Task {task}[{id}] succeeded in {secs:.3}s: None"
        );
    };
    g.fill(at[0], line);
    let ts = py_stamp(g.tick(1, 300));
    w!(
        g,
        "[{ts}: ERROR/ForkPoolWorker-3] Task billing.tasks.sync_account[0b9d3c11-5e2a-4c1e-8f55-7b1f0e4c9d6a] raised unexpected: HTTPError('429 Client Error: Too Many Requests for url: https://api.stripe.com/v1/customers/cus_Q8xT4mZkY2bLrA/invoices?limit=100')"
    );
    g.lines(&[
        "Traceback (most recent call last):",
        "  File \"/usr/local/lib/python3.11/site-packages/celery/app/trace.py\", line 477, in trace_task",
        "    R = retval = fun(*args, **kwargs)",
        "                 ^^^^^^^^^^^^^^^^^^^^",
        "  File \"/app/billing/tasks.py\", line 41, in sync_account",
        "    invoices = client.list_invoices(account.stripe_id)",
        "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "  File \"/app/billing/stripe_client.py\", line 88, in list_invoices",
        "    resp.raise_for_status()",
        "  File \"/usr/local/lib/python3.11/site-packages/requests/models.py\", line 1021, in raise_for_status",
        "    raise HTTPError(http_error_msg, response=self)",
        "requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: https://api.stripe.com/v1/customers/cus_Q8xT4mZkY2bLrA/invoices?limit=100",
    ]);
    g.needle("File \"/app/billing/stripe_client.py\", line 88, in list_invoices");
    g.needle("requests.exceptions.HTTPError: 429 Client Error: Too Many Requests");
    g.fill(1.0, line);
    g.finish("docker logs billing-worker", Family::ServerLog)
}

/// gunicorn serving Django: access lines; a KeyError with its traceback,
/// and a worker timeout.
fn django(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.0, 1.0);
    let line = |g: &mut Gen| {
        let t = g.tick(1, 500);
        let ts = py_stamp(t);
        let ip = format!("10.0.{}.{}", g.rng.range(0, 8), g.rng.range(2, 250));
        let (verb, path) = *g.rng.pick(&[
            ("GET", "/api/v2/products/?page="),
            ("GET", "/api/v2/cart/"),
            ("POST", "/api/v2/cart/items/"),
            ("GET", "/healthz?probe="),
            ("GET", "/api/v2/orders/?cursor="),
        ]);
        let n = g.rng.range(1, 400);
        let bytes = g.rng.range(200, 40_000);
        w!(
            g,
            "{ip} - - [11/Mar/2024:{}] \"{verb} {path}{n} HTTP/1.1\" 200 {bytes} \"-\" \"okhttp/4.12.0\" {}ms",
            &ts[11..19],
            g.rng.range(2, 300)
        );
    };
    g.fill(at[0], line);
    let ts = py_stamp(g.tick(1, 500));
    w!(
        g,
        "[{ts}] ERROR [django.request:241] Internal Server Error: /api/v2/checkout/"
    );
    g.lines(&[
        "Traceback (most recent call last):",
        "  File \"/usr/local/lib/python3.11/site-packages/django/core/handlers/exception.py\", line 55, in inner",
        "    response = get_response(request)",
        "               ^^^^^^^^^^^^^^^^^^^^^",
        "  File \"/usr/local/lib/python3.11/site-packages/django/core/handlers/base.py\", line 197, in _get_response",
        "    response = wrapped_callback(request, *callback_args, **callback_kwargs)",
        "  File \"/usr/local/lib/python3.11/site-packages/rest_framework/views.py\", line 506, in dispatch",
        "    response = handler(request, *args, **kwargs)",
        "  File \"/app/shop/checkout/views.py\", line 143, in post",
        "    address = payload[\"shipping_address\"]",
        "              ~~~~~~~^^^^^^^^^^^^^^^^^^^^",
        "KeyError: 'shipping_address'",
    ]);
    g.needle("File \"/app/shop/checkout/views.py\", line 143, in post");
    g.needle("KeyError: 'shipping_address'");
    g.fill(at[1], line);
    let ts = py_stamp(g.tick(1, 500));
    w!(g, "[{ts}] [1] [CRITICAL] WORKER TIMEOUT (pid:4127)");
    w!(g, "[{ts}] [4127] [INFO] Worker exiting (pid: 4127)");
    w!(g, "[{ts}] [4188] [INFO] Booting worker with pid: 4188");
    g.needle("WORKER TIMEOUT (pid:4127)");
    g.fill(1.0, line);
    g.finish(
        "kubectl logs deploy/shop-web -c gunicorn",
        Family::ServerLog,
    )
}

/// `docker compose logs` of a small stack: nginx, api, redis, worker
/// interleaved; an upstream timeout and a Redis persistence error.
fn compose(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 2, 0.0, 1.0);
    let line = |g: &mut Gen| {
        let t = g.tick(1, 120);
        let ts = stamp(t);
        match g.rng.index(8) {
            0..=3 => {
                let ip = format!("172.18.0.{}", g.rng.range(2, 30));
                let path = *g.rng.pick(&[
                    "/v1/products",
                    "/v1/cart",
                    "/v1/session",
                    "/v1/search?q=shoes",
                ]);
                w!(
                    g,
                    "nginx-1   | {ip} - - [11/Mar/2024:{} +0000] \"GET {path} HTTP/1.1\" 200 {} \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\" rt={:.3}",
                    &ts[11..19],
                    g.rng.range(100, 9000),
                    g.rng.frac(0.001, 0.4)
                );
            }
            4 | 5 => {
                w!(
                    g,
                    "api-1     | {{\"level\":\"info\",\"ts\":\"{ts}\",\"msg\":\"request served\",\"route\":\"/v1/products\",\"status\":200,\"duration_ms\":{},\"request_id\":\"{}\"}}",
                    g.rng.range(1, 300),
                    g.rng.hex(12)
                );
            }
            6 => {
                w!(
                    g,
                    "worker-1  | {ts} INFO processed job sync-inventory id={} in {}ms",
                    g.rng.range(1000, 99999),
                    g.rng.range(5, 900)
                );
            }
            _ => {
                let pid = 1;
                w!(
                    g,
                    "redis-1   | {pid}:M 11 Mar 2024 {}.{:03} * {} changes in {} seconds. Saving...",
                    &ts[11..19],
                    g.rng.range(0, 1000),
                    g.rng.range(10, 100),
                    g.rng.range(60, 300)
                );
            }
        }
    };
    g.fill(at[0], line);
    w!(
        g,
        "nginx-1   | 2024/03/11 15:12:44 [error] 31#31: *48213 upstream timed out (110: Connection timed out) while reading response header from upstream, client: 172.18.0.1, server: api.acme.io, request: \"POST /v1/checkout HTTP/1.1\", upstream: \"http://172.18.0.5:8080/v1/checkout\", host: \"api.acme.io\""
    );
    g.needle("upstream timed out (110: Connection timed out) while reading response header from upstream");
    g.needle("upstream: \"http://172.18.0.5:8080/v1/checkout\"");
    g.fill(at[1], line);
    g.lines(&[
        "redis-1   | 1:M 11 Mar 2024 15:40:02.118 # Background saving error",
        "api-1     | {\"level\":\"error\",\"ts\":\"2024-03-11 15:40:02.131\",\"msg\":\"cache write failed\",\"error\":\"MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.\"}",
        "redis-1   | 1:M 11 Mar 2024 15:40:03.001 # Write error saving DB on disk: No space left on device",
    ]);
    g.needle("MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk");
    g.needle("Write error saving DB on disk: No space left on device");
    g.fill(1.0, line);
    g.finish("docker compose logs --no-color", Family::ServerLog)
}

const DEPLOYMENTS: &[&str] = &[
    "web",
    "api",
    "checkout",
    "catalog",
    "search",
    "cart",
    "auth",
    "notifications",
    "shipping",
    "pricing",
    "reviews",
    "recommendations",
    "inventory",
    "media",
    "admin",
];
const NAMESPACES: &[&str] = &[
    "prod",
    "staging",
    "monitoring",
    "ingress-nginx",
    "team-data",
];

fn kube_pod(g: &mut Gen, deploy: &str) -> String {
    format!(
        "{deploy}-{}-{}",
        g.rng.kube_suffix(10),
        g.rng.kube_suffix(5)
    )
}

/// `kubectl get events -A`: a cluster during a rollout, Normal events by
/// the thousand, a few warnings that matter and some that do not.
fn kube_events(name: &str, seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 3, 0.0, 1.0);
    w!(
        g,
        "NAMESPACE       LAST SEEN   TYPE      REASON              OBJECT                                        MESSAGE"
    );
    let row =
        |g: &mut Gen, ns: &str, seen: &str, kind: &str, reason: &str, object: &str, msg: &str| {
            w!(
                g,
                "{ns:<15} {seen:<11} {kind:<9} {reason:<19} {object:<45} {msg}"
            );
        };
    let filler = |g: &mut Gen| {
        let ns = *g.rng.pick(NAMESPACES);
        let deploy = *g.rng.pick(DEPLOYMENTS);
        let pod = kube_pod(g, deploy);
        let seen = age(g.rng.range(5, 20_000));
        let node = format!(
            "ip-10-0-{}-{}.ec2.internal",
            g.rng.range(0, 8),
            g.rng.range(2, 250)
        );
        let image = format!(
            "123456789012.dkr.ecr.us-east-1.amazonaws.com/{deploy}:2024.03.11-{}",
            g.rng.range(1, 9)
        );
        let object = format!("pod/{pod}");
        match g.rng.index(40) {
            0..=5 => row(
                g,
                ns,
                &seen,
                "Normal",
                "Scheduled",
                &object,
                &format!("Successfully assigned {ns}/{pod} to {node}"),
            ),
            6..=11 => row(
                g,
                ns,
                &seen,
                "Normal",
                "Pulling",
                &object,
                &format!("Pulling image \"{image}\""),
            ),
            12..=17 => {
                let ms = g.rng.range(300, 9000);
                row(
                    g,
                    ns,
                    &seen,
                    "Normal",
                    "Pulled",
                    &object,
                    &format!(
                        "Successfully pulled image \"{image}\" in {}.{:03}s ({}.{:03}s including waiting)",
                        ms / 1000,
                        ms % 1000,
                        ms / 1000,
                        ms % 1000
                    ),
                );
            }
            18..=23 => row(
                g,
                ns,
                &seen,
                "Normal",
                "Created",
                &object,
                &format!("Created container {deploy}"),
            ),
            24..=29 => row(
                g,
                ns,
                &seen,
                "Normal",
                "Started",
                &object,
                &format!("Started container {deploy}"),
            ),
            30..=33 => {
                let rs = pod
                    .rsplit_once('-')
                    .map_or(pod.as_str(), |(a, _)| a)
                    .to_owned();
                row(
                    g,
                    ns,
                    &seen,
                    "Normal",
                    "SuccessfulCreate",
                    &format!("replicaset/{rs}"),
                    &format!("Created pod: {pod}"),
                );
            }
            34..=36 => {
                let rs = pod
                    .rsplit_once('-')
                    .map_or(pod.as_str(), |(a, _)| a)
                    .to_owned();
                let n = g.rng.range(2, 30);
                row(
                    g,
                    ns,
                    &seen,
                    "Normal",
                    "ScalingReplicaSet",
                    &format!("deployment/{deploy}"),
                    &format!("Scaled up replica set {rs} to {n} from {}", n - 1),
                );
            }
            37 => row(
                g,
                ns,
                &seen,
                "Normal",
                "Killing",
                &object,
                &format!("Stopping container {deploy}"),
            ),
            38 => row(
                g,
                ns,
                &seen,
                "Warning",
                "Unhealthy",
                &object,
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
            _ => row(
                g,
                ns,
                &seen,
                "Normal",
                "SandboxChanged",
                &object,
                "Pod sandbox changed, it will be killed and re-created.",
            ),
        }
    };
    g.fill(at[0], filler);
    row(
        &mut g,
        "prod",
        "3m12s",
        "Warning",
        "BackOff",
        "pod/payments-api-7d9f8c6b5-x2kqp",
        "Back-off restarting failed container api in pod payments-api-7d9f8c6b5-x2kqp_prod(3f1c9a7e-0d2b-4e8f-9c61-5a7b2d4e8f10)",
    );
    g.needle("Back-off restarting failed container api in pod payments-api-7d9f8c6b5-x2kqp");
    g.fill(at[1], filler);
    row(
        &mut g,
        "team-data",
        "19m",
        "Warning",
        "FailedScheduling",
        "pod/search-indexer-5c8d7f9b4-qk2lm",
        "0/42 nodes are available: 42 Insufficient memory. preemption: 0/42 nodes are available: 42 No preemption victims found for incoming pod.",
    );
    g.needle("pod/search-indexer-5c8d7f9b4-qk2lm");
    g.needle("0/42 nodes are available: 42 Insufficient memory");
    g.fill(at[2], filler);
    row(
        &mut g,
        "default",
        "7m",
        "Warning",
        "OOMKilling",
        "node/ip-10-0-5-33.ec2.internal",
        "Memory cgroup out of memory: Killed process 81234 (java) total-vm:8123456kB, anon-rss:4194304kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:9012kB oom_score_adj:936",
    );
    g.needle("Killed process 81234 (java)");
    g.fill(1.0, filler);
    g.finish(name, Family::Kubectl)
}

/// `kubectl get pods -A -o wide`: a few thousand Running pods, three that
/// are not.
fn kube_pods(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 3, 0.0, 1.0);
    let row = |g: &mut Gen,
               ns: &str,
               pod: &str,
               ready: &str,
               status: &str,
               restarts: &str,
               age: &str| {
        let ip = format!("10.0.{}.{}", g.rng.range(0, 8), g.rng.range(2, 250));
        let node = format!(
            "ip-10-0-{}-{}.ec2.internal",
            g.rng.range(0, 8),
            g.rng.range(2, 250)
        );
        w!(
            g,
            "{ns:<15} {pod:<45} {ready:<7} {status:<18} {restarts:<15} {age:<6} {ip:<13} {node:<30} <none>           <none>"
        );
    };
    w!(
        g,
        "NAMESPACE       NAME                                          READY   STATUS             RESTARTS        AGE    IP            NODE                           NOMINATED NODE   READINESS GATES"
    );
    let filler = |g: &mut Gen| {
        let ns = *g.rng.pick(NAMESPACES);
        let deploy = *g.rng.pick(DEPLOYMENTS);
        let pod = kube_pod(g, deploy);
        let restarts = if g.rng.chance(0.9) {
            "0".to_owned()
        } else {
            format!("1 ({} ago)", age(g.rng.range(100, 90_000)))
        };
        let a = age(g.rng.range(60, 900_000));
        row(g, ns, &pod, "1/1", "Running", &restarts, &a);
    };
    g.fill(at[0], filler);
    row(
        &mut g,
        "prod",
        "payments-api-7d9f8c6b5-x2kqp",
        "0/1",
        "CrashLoopBackOff",
        "27 (3m12s ago)",
        "2h",
    );
    g.needle(format!(
        "{:<45} 0/1     CrashLoopBackOff",
        "payments-api-7d9f8c6b5-x2kqp"
    ));
    g.fill(at[1], filler);
    row(
        &mut g,
        "team-data",
        "search-indexer-5c8d7f9b4-qk2lm",
        "0/1",
        "OOMKilled",
        "5 (41s ago)",
        "19m",
    );
    g.needle(format!(
        "{:<45} 0/1     OOMKilled",
        "search-indexer-5c8d7f9b4-qk2lm"
    ));
    g.fill(at[2], filler);
    row(
        &mut g,
        "staging",
        "media-resizer-6f7c9d5b8-h4wzn",
        "0/1",
        "ImagePullBackOff",
        "0",
        "41m",
    );
    g.needle(format!(
        "{:<45} 0/1     ImagePullBackOff",
        "media-resizer-6f7c9d5b8-h4wzn"
    ));
    g.fill(1.0, filler);
    g.finish("kubectl get pods -A -o wide", Family::Kubectl)
}

/// A script that fetches a 2 GiB wheel with `wget` and checks it: dot
/// progress, the connection drops twice and wget resumes, then the checksum
/// check fails.
fn wget_progress(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let total: u64 = 2_200_419_329;
    let url =
        "https://download.pytorch.org/whl/cu121/torch-2.2.1%2Bcu121-cp311-cp311-linux_x86_64.whl";
    let file = "torch-2.2.1+cu121-cp311-cp311-linux_x86_64.whl";
    w!(g, "--2024-03-11 14:02:17--  {url}");
    g.lines(&[
        "Resolving download.pytorch.org (download.pytorch.org)... 18.160.10.52, 18.160.10.91, 18.160.10.12, ...",
        "Connecting to download.pytorch.org (download.pytorch.org)|18.160.10.52|:443... connected.",
        "HTTP request sent, awaiting response... 200 OK",
        "Length: 2200419329 (2.0G) [application/x-zip-compressed]",
    ]);
    w!(g, "Saving to: '{file}'");
    w!(g, "");
    // Each line is 50 KiB; the text ends near `size` when the download does.
    let lines_total = total / (50 * 1024);
    let mut kib: u64 = 0;
    let dots = |g: &mut Gen, kib: &mut u64| {
        let pct = *kib * 1024 * 100 / total;
        let speed = g.rng.frac(8.0, 48.0);
        let left = (total - (*kib * 1024).min(total)) as f64 / (speed * 1e6);
        w!(
            g,
            "{:>8}K .......... .......... .......... .......... .......... {pct:>2}% {speed:.1}M {}m{}s",
            *kib,
            left as u64 / 60,
            left as u64 % 60
        );
        *kib += 50;
    };
    let breaks = [g.rng.frac(0.2, 0.45), g.rng.frac(0.55, 0.85)];
    for (i, b) in breaks.iter().enumerate() {
        let until = (lines_total as f64 * b) as u64 * 50;
        while kib < until {
            dots(&mut g, &mut kib);
        }
        let byte = kib * 1024 + g.rng.range(0, 50 * 1024);
        if i == 0 {
            w!(g, "");
            w!(
                g,
                "2024-03-11 14:04:11 (28.1 MB/s) - Connection closed at byte {byte}. Retrying."
            );
            g.needle(format!("Connection closed at byte {byte}. Retrying."));
        } else {
            w!(g, "");
            w!(
                g,
                "2024-03-11 14:09:47 (31.0 MB/s) - Read error at byte {byte}/{total} (Connection reset by peer). Retrying."
            );
            g.needle(format!(
                "Read error at byte {byte}/{total} (Connection reset by peer). Retrying."
            ));
        }
        w!(g, "");
        w!(
            g,
            "--2024-03-11 {}--  (try: {})  {url}",
            if i == 0 { "14:04:12" } else { "14:09:48" },
            i + 2
        );
        w!(
            g,
            "Connecting to download.pytorch.org (download.pytorch.org)|18.160.10.52|:443... connected."
        );
        w!(
            g,
            "HTTP request sent, awaiting response... 206 Partial Content"
        );
        w!(
            g,
            "Length: {total} (2.0G), {} remaining [application/x-zip-compressed]",
            total - byte
        );
        w!(g, "Saving to: '{file}'");
        w!(g, "");
        w!(g, "         [ skipping {}K ]", kib);
    }
    while kib * 1024 < total {
        dots(&mut g, &mut kib);
    }
    w!(g, "");
    w!(
        g,
        "2024-03-11 14:12:01 (30.2 MB/s) - '{file}' saved [{total}/{total}]"
    );
    w!(g, "");
    w!(
        g,
        "+ echo \"5a6e1f3c9b2d4e8f0a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f  {file}\" | sha256sum -c -"
    );
    w!(g, "{file}: FAILED");
    w!(g, "sha256sum: WARNING: 1 computed checksum did NOT match");
    w!(g, "Error: Process completed with exit code 1.");
    g.needle(format!("{file}: FAILED"));
    g.exit_code = 1;
    g.finish("./scripts/fetch-wheels.sh", Family::Progress)
}

/// A fine-tuning run's log: tqdm lines by the thousand, an evaluation after
/// each epoch, a NaN warning, and the run dies out of GPU memory.
fn training(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let epochs = 6u64;
    let steps = 5000u64;
    let per_epoch = 0.97 / epochs as f64;
    let nan_epoch = g.rng.range(1, 4);
    let mut step_total = 0u64;
    g.lines(&[
        "***** Running training *****",
        "  Num examples = 160,000",
        "  Num Epochs = 6",
        "  Instantaneous batch size per device = 32",
        "  Total optimization steps = 30,000",
    ]);
    for epoch in 1..=epochs {
        let end = per_epoch * epoch as f64;
        let start_len = g.out.len();
        let span = (g.size as f64 * per_epoch) as usize;
        let nan_at = g.rng.frac(0.3, 0.7);
        let mut warned = false;
        g.fill(end, |g| {
            let done = ((g.out.len() - start_len) as u64 * steps / span as u64).min(steps);
            let bar_len = (done * 10 / steps) as usize;
            let bar = format!("{}{}", "█".repeat(bar_len), " ".repeat(10 - bar_len));
            let loss = 0.9 / (epoch as f64 + done as f64 / steps as f64) + g.rng.frac(0.0, 0.05);
            w!(g, "Epoch {epoch}/{epochs}: {:>3}%|{bar}| {done}/{steps} [{:02}:{:02}<{:02}:{:02}, {:.2}it/s, loss={loss:.4}, lr=2.0e-05]", done * 100 / steps, done / 160, done / 2 % 60, (steps - done) / 160, (steps - done) / 2 % 60, g.rng.frac(2.5, 2.9));
            if epoch == nan_epoch && !warned && (g.out.len() - start_len) as f64 > span as f64 * nan_at {
                warned = true;
                let step = step_total + done;
                w!(g, "WARNING:trainer:NaN or Inf found in loss at step {step}, skipping update (grad scaler scale reduced to 16384.0)");
                g.needle(format!("NaN or Inf found in loss at step {step}"));
            }
        });
        step_total += steps;
        let acc = 0.80 + epoch as f64 * 0.017 + g.rng.frac(0.0, 0.004);
        let f1 = acc - 0.006;
        w!(
            g,
            "{{'eval_loss': {:.4}, 'eval_accuracy': {acc:.4}, 'eval_f1': {f1:.4}, 'eval_runtime': 41.2{epoch}, 'epoch': {epoch}.0}}",
            0.5 / epoch as f64 + 0.2
        );
        if epoch == 4 {
            g.needle(format!("'eval_accuracy': {acc:.4}, 'eval_f1': {f1:.4}"));
        }
        if epoch < epochs {
            w!(
                g,
                "Saving model checkpoint to /runs/ft-7b/checkpoint-{step_total}"
            );
        }
    }
    g.lines(&[
        "Traceback (most recent call last):",
        "  File \"/workspace/train.py\", line 212, in <module>",
        "    trainer.save_model(final_dir)",
        "  File \"/usr/local/lib/python3.11/site-packages/transformers/trainer.py\", line 2961, in save_model",
        "    state_dict = self.accelerator.get_state_dict(self.deepspeed)",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 39.39 GiB of which 1.21 GiB is free. Of the allocated memory 35.12 GiB is allocated by PyTorch, and 1.76 GiB is reserved by PyTorch but unallocated.",
    ]);
    g.needle("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.");
    g.exit_code = 1;
    g.finish("python train.py (fine-tuning log)", Family::Progress)
}
