//! Data-shaped output: grep over minified bundles (few, huge lines), whole
//! JSON documents from APIs, and unified diffs.

use std::fmt::Write as _;

use super::corpus::{Case, Family};
use super::synth::spots;
use super::synth::{Gen, Rng, iso, w};
use crate::corpus::KIB;

pub(super) fn cases() -> Vec<Case> {
    vec![
        grep_bundle(51, 1200 * KIB),
        grep_chunks(52, 500 * KIB),
        github_runs(53, 700 * KIB),
        kube_pods_json(54, 900 * KIB),
        es_search(55, 400 * KIB),
        diff_refactor(56, 800 * KIB),
        git_log_patch(57, 350 * KIB),
    ]
}

const JS_WORDS: &[&str] = &[
    "cart",
    "price",
    "items",
    "user",
    "locale",
    "theme",
    "route",
    "query",
    "state",
    "props",
    "children",
    "ref",
    "key",
    "value",
    "onChange",
    "disabled",
    "className",
    "style",
    "data",
];
const JS_STRINGS: &[&str] = &[
    "Add to cart",
    "Checkout",
    "Your order",
    "Free shipping over $50",
    "Out of stock",
    "Something went wrong",
    "aria-label",
    "button",
    "submit",
    "data-testid",
    "use strict",
];

/// Minified JavaScript up to `until` bytes of `out`, on one line.
fn minified(out: &mut String, rng: &mut Rng, until: usize) {
    while out.len() < until {
        let a = rng.alnum(2);
        let b = *rng.pick(JS_WORDS);
        let c = *rng.pick(JS_WORDS);
        let s = *rng.pick(JS_STRINGS);
        let n = rng.range(0, 9999);
        let _ = match rng.index(6) {
            0 => write!(
                out,
                "function {a}(e,t){{return e.{b}.reduce((n,r)=>n+r.{c},{})}}",
                n % 10
            ),
            1 => write!(out, "var {a}=n({n}),{}=n.n({a});", rng.alnum(2)),
            2 => write!(
                out,
                "const {a}=(0,o.jsx)(\"div\",{{className:\"{b}-{c}\",children:\"{s}\"}});"
            ),
            3 => write!(
                out,
                "{a}.prototype.{b}=function(e){{if(!this.{c})throw new Error(\"{s}\");this.{c}[e]=!0}};"
            ),
            4 => write!(out, "e.exports={{{b}:{a},{c}:function(){{return {n}}}}};"),
            _ => write!(
                out,
                "}},{n}:function(e,t,n){{\"use strict\";n.r(t),n.d(t,{{{b}:()=>{a}}});"
            ),
        };
    }
}

/// `grep -rn "apiBase\|sentryDsn" dist/` over a built front end: three
/// matching lines, each a whole minified file or source map.
fn grep_bundle(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let mut rng = g.rng.clone();
    // admin bundle: 30% of the output, the DSN somewhere inside.
    g.out.push_str("dist/assets/admin-9c1f3a7b.js:1:");
    g.needle("dist/assets/admin-9c1f3a7b.js:1:");
    let end = size * 30 / 100;
    let dsn_at = g.out.len() + (end - g.out.len()) * rng.index(80) / 100 + 1000;
    minified(&mut g.out, &mut rng, dsn_at);
    g.out.push_str("Sentry.init({sentryDsn:\"https://5f3c0e8a91b24c7d@o44123.ingest.sentry.io/6512345\",tracesSampleRate:.2,environment:\"production\"});");
    g.needle("sentryDsn:\"https://5f3c0e8a91b24c7d@o44123.ingest.sentry.io/6512345\"");
    minified(&mut g.out, &mut rng, end);
    g.out.push('\n');
    // main bundle: the API base in its config module.
    g.out.push_str("dist/assets/index-4f9a2c1e.js:1:");
    g.needle("dist/assets/index-4f9a2c1e.js:1:");
    let end = size * 75 / 100;
    let start = g.out.len();
    let api_at = start + (end - start) * (10 + rng.index(80)) / 100;
    minified(&mut g.out, &mut rng, api_at);
    g.out
        .push_str("const Cf={apiBase:\"https://api.internal.acme.io/v2\",timeout:3e4,retries:2};");
    g.needle("apiBase:\"https://api.internal.acme.io/v2\"");
    minified(&mut g.out, &mut rng, end);
    g.out.push('\n');
    // its source map: one JSON line whose sourcesContent holds the source.
    g.out.push_str("dist/assets/index-4f9a2c1e.js.map:1:{\"version\":3,\"file\":\"index-4f9a2c1e.js\",\"mappings\":\"");
    while g.out.len() < size - 2000 {
        let seg = rng.alnum(6);
        g.out.push_str(&seg);
        g.out.push(if rng.chance(0.1) { ';' } else { ',' });
    }
    g.out.push_str("\",\"sources\":[\"../../src/config.ts\"],\"sourcesContent\":[\"export const config = {\\n  apiBase: \\\"https://api.internal.acme.io/v2\\\",\\n  timeout: 30_000,\\n  retries: 2,\\n};\\n\"],\"names\":[]}\n");
    g.rng = rng;
    g.finish("grep -rn \"apiBase\\|sentryDsn\" dist/", Family::Grep)
}

/// `grep -rn "pk_live_" .next/static/chunks/`: a dozen chunks match, each a
/// long line; two hold live keys.
fn grep_chunks(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let mut rng = g.rng.clone();
    let chunks = 12;
    let keys = [rng.index(chunks / 2), chunks / 2 + rng.index(chunks / 2)];
    for i in 0..chunks {
        let name = match i {
            _ if i == keys[0] => "pages/checkout-2b1f9c3e7a4d5f60.js".to_owned(),
            _ if i == keys[1] => "app/account/billing/page-8e0c4a1d9b7f2e35.js".to_owned(),
            _ => format!("{}-{}.js", rng.range(100, 999), rng.hex(16)),
        };
        let _ = write!(g.out, ".next/static/chunks/{name}:1:");
        let end = size * (i + 1) / chunks - 200;
        let at = g.out.len() + (end - g.out.len()) * (10 + rng.index(80)) / 100;
        minified(&mut g.out, &mut rng, at);
        if i == keys[0] {
            g.out
                .push_str("let Xs=(0,Ga.J)(\"pk_live_51HxT4mZkY2bLrAq9Wc3vE8uN0pDs7fJ\");");
            g.needle(".next/static/chunks/pages/checkout-2b1f9c3e7a4d5f60.js:1:");
            g.needle("\"pk_live_51HxT4mZkY2bLrAq9Wc3vE8uN0pDs7fJ\"");
        } else if i == keys[1] {
            g.out
                .push_str("const Rb=\"pk_live_51Gq8XbRt0LmVwZ3yC6dP1nK4sA9eH2uF\";");
            g.needle("\"pk_live_51Gq8XbRt0LmVwZ3yC6dP1nK4sA9eH2uF\"");
        } else {
            g.out.push_str("const Ka=\"pk_live_\"===t.slice(0,8);");
        }
        minified(&mut g.out, &mut rng, end);
        g.out.push('\n');
    }
    g.rng = rng;
    g.finish("grep -rn \"pk_live_\" .next/static/chunks/", Family::Grep)
}

/// An index of an array of `count` items outside its first and last tenth:
/// the item a model looks for is in the middle of a big array.
fn middle_of(rng: &mut Rng, count: usize) -> usize {
    count / 10 + 1 + rng.index(count * 8 / 10)
}

const BRANCHES: &[&str] = &[
    "main",
    "renovate/eslint-9.x",
    "feature/wishlist-sharing",
    "fix/flaky-cart-test",
    "feature/search-facets",
    "chore/bump-node-20",
];
const TITLES: &[&str] = &[
    "Bump eslint from 8.57.0 to 9.0.0",
    "Share wishlists by link",
    "Stabilise cart drawer test",
    "Add brand and size facets",
    "Use Node 20 in CI",
    "Merge pull request #4120 from acme/fix/typo",
];

/// `gh api repos/acme/shop/actions/runs?per_page=100`: GitHub's pretty
/// JSON, one failed run among successes.
fn github_runs(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let mut rng = g.rng.clone();
    let count = size / 3300;
    let failed = middle_of(&mut rng, count);
    let _ = write!(
        g.out,
        "{{\n  \"total_count\": 18412,\n  \"workflow_runs\": [\n"
    );
    let mut id: u64 = 8_231_199_000;
    for i in 0..count {
        id -= rng.range(20, 400);
        let (run_id, branch, title, conclusion) = if i == failed {
            (
                8_231_197_365,
                "hotfix/refund-rounding",
                "Fix refund rounding for partial captures",
                "failure",
            )
        } else {
            let c = if rng.chance(0.1) {
                "cancelled"
            } else {
                "success"
            };
            (id, *rng.pick(BRANCHES), *rng.pick(TITLES), c)
        };
        let sha = rng.hex(40);
        let t = iso(43_200_000 - i as u64 * 60_000);
        let t = format!("{}Z", &t[..19]);
        let _ = write!(
            g.out,
            r#"    {{
      "id": {run_id},
      "name": "CI",
      "node_id": "WFR_kwLOF{node}",
      "head_branch": "{branch}",
      "head_sha": "{sha}",
      "path": ".github/workflows/ci.yml",
      "display_title": "{title}",
      "run_number": {num},
      "event": "{event}",
      "status": "completed",
      "conclusion": "{conclusion}",
      "workflow_id": 61230942,
      "check_suite_id": {suite},
      "check_suite_node_id": "CS_kwDOF{csnode}",
      "url": "https://api.github.com/repos/acme/shop/actions/runs/{run_id}",
      "html_url": "https://github.com/acme/shop/actions/runs/{run_id}",
      "pull_requests": [],
      "created_at": "{t}",
      "updated_at": "{t}",
      "actor": {{
        "login": "{actor}",
        "id": {actor_id},
        "node_id": "MDQ6VXNlcj{actor_node}",
        "avatar_url": "https://avatars.githubusercontent.com/u/{actor_id}?v=4",
        "url": "https://api.github.com/users/{actor}",
        "html_url": "https://github.com/{actor}",
        "type": "User",
        "site_admin": false
      }},
      "run_attempt": 1,
      "referenced_workflows": [],
      "run_started_at": "{t}",
      "jobs_url": "https://api.github.com/repos/acme/shop/actions/runs/{run_id}/jobs",
      "logs_url": "https://api.github.com/repos/acme/shop/actions/runs/{run_id}/logs",
      "check_suite_url": "https://api.github.com/repos/acme/shop/check-suites/{suite}",
      "artifacts_url": "https://api.github.com/repos/acme/shop/actions/runs/{run_id}/artifacts",
      "cancel_url": "https://api.github.com/repos/acme/shop/actions/runs/{run_id}/cancel",
      "rerun_url": "https://api.github.com/repos/acme/shop/actions/runs/{run_id}/rerun",
      "previous_attempt_url": null,
      "workflow_url": "https://api.github.com/repos/acme/shop/actions/workflows/61230942",
      "head_commit": {{
        "id": "{sha}",
        "tree_id": "{tree}",
        "message": "{title}",
        "timestamp": "{t}",
        "author": {{
          "name": "{actor}",
          "email": "{actor}@users.noreply.github.com"
        }},
        "committer": {{
          "name": "GitHub",
          "email": "noreply@github.com"
        }}
      }},
      "repository": {{
        "id": 412339871,
        "node_id": "R_kgDOGJPx3w",
        "name": "shop",
        "full_name": "acme/shop",
        "private": true,
        "owner": {{
          "login": "acme",
          "id": 91823311,
          "type": "Organization",
          "site_admin": false
        }},
        "html_url": "https://github.com/acme/shop",
        "description": "Storefront, checkout and back office",
        "fork": false,
        "url": "https://api.github.com/repos/acme/shop",
        "hooks_url": "https://api.github.com/repos/acme/shop/hooks",
        "issues_url": "https://api.github.com/repos/acme/shop/issues{{/number}}",
        "pulls_url": "https://api.github.com/repos/acme/shop/pulls{{/number}}",
        "deployments_url": "https://api.github.com/repos/acme/shop/deployments"
      }}
    }}{comma}
"#,
            node = rng.alnum(12),
            num = 18412 - i,
            event = if branch == "main" {
                "push"
            } else {
                "pull_request"
            },
            suite = 21_000_000_000 + rng.range(0, 999_999_999),
            csnode = rng.alnum(16),
            actor = *rng.pick(&[
                "dana-kim",
                "renovate[bot]",
                "mo-hassan",
                "lucia-v",
                "tpetrov"
            ]),
            actor_id = rng.range(1_000_000, 99_000_000),
            actor_node = rng.alnum(8),
            tree = rng.hex(40),
            comma = if i + 1 == count { "" } else { "," },
        );
    }
    g.out.push_str("  ]\n}\n");
    g.needle("\"html_url\": \"https://github.com/acme/shop/actions/runs/8231197365\"");
    g.needle("\"head_branch\": \"hotfix/refund-rounding\"");
    g.needle("\"display_title\": \"Fix refund rounding for partial captures\"");
    g.rng = rng;
    g.finish(
        "gh api repos/acme/shop/actions/runs?per_page=100",
        Family::Json,
    )
}

/// `kubectl get pods -n team-data -o json`: 4-space JSON, one pod whose
/// container was OOM-killed and now crash-loops.
fn kube_pods_json(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let mut rng = g.rng.clone();
    let count = size / 5100;
    let bad = middle_of(&mut rng, count);
    g.out
        .push_str("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n");
    for i in 0..count {
        let deploy = *rng.pick(&[
            "search-api",
            "search-indexer",
            "etl-runner",
            "feature-store",
            "airflow-worker",
        ]);
        let name = if i == bad {
            "search-indexer-5c8d7f9b4-qk2lm".to_owned()
        } else {
            format!("{deploy}-{}-{}", rng.kube_suffix(10), rng.kube_suffix(5))
        };
        let deploy = if i == bad { "search-indexer" } else { deploy };
        let rs = name
            .rsplit_once('-')
            .map_or(name.as_str(), |(a, _)| a)
            .to_owned();
        let uid = super::synth::uuid(&mut rng);
        let start = iso(rng.range(0, 86_400_000));
        let start = format!("{}Z", &start[..19]);
        let (last_state, restarts, state, ready) = if i == bad {
            (
                format!(
                    r#"{{
                            "terminated": {{
                                "containerID": "containerd://{cid}",
                                "exitCode": 137,
                                "finishedAt": "2024-03-11T14:41:07Z",
                                "reason": "OOMKilled",
                                "startedAt": "2024-03-11T14:39:52Z"
                            }}
                        }}"#,
                    cid = rng.hex(64)
                ),
                14,
                format!(
                    r#"{{
                            "waiting": {{
                                "message": "back-off 5m0s restarting failed container=indexer pod={name}_team-data({uid})",
                                "reason": "CrashLoopBackOff"
                            }}
                        }}"#
                ),
                "false",
            )
        } else {
            (
                "{}".to_owned(),
                rng.range(0, 4),
                format!(
                    "{{\n                            \"running\": {{\n                                \"startedAt\": \"{start}\"\n                            }}\n                        }}"
                ),
                "true",
            )
        };
        let ip = format!("10.0.{}.{}", rng.range(0, 8), rng.range(2, 250));
        let node = format!(
            "ip-10-0-{}-{}.ec2.internal",
            rng.range(0, 8),
            rng.range(2, 250)
        );
        let _ = write!(
            g.out,
            r#"        {{
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {{
                "annotations": {{
                    "kubectl.kubernetes.io/restartedAt": "2024-03-11T09:12:44Z",
                    "prometheus.io/port": "9102",
                    "prometheus.io/scrape": "true"
                }},
                "creationTimestamp": "{start}",
                "generateName": "{rs}-",
                "labels": {{
                    "app.kubernetes.io/name": "{deploy}",
                    "app.kubernetes.io/part-of": "search",
                    "pod-template-hash": "{hash}"
                }},
                "name": "{name}",
                "namespace": "team-data",
                "ownerReferences": [
                    {{
                        "apiVersion": "apps/v1",
                        "blockOwnerDeletion": true,
                        "controller": true,
                        "kind": "ReplicaSet",
                        "name": "{rs}",
                        "uid": "{owner}"
                    }}
                ],
                "resourceVersion": "{rv}",
                "uid": "{uid}"
            }},
            "spec": {{
                "containers": [
                    {{
                        "env": [
                            {{
                                "name": "JAVA_TOOL_OPTIONS",
                                "value": "-XX:MaxRAMPercentage=75"
                            }},
                            {{
                                "name": "ES_URL",
                                "value": "http://elasticsearch.team-data.svc:9200"
                            }}
                        ],
                        "image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/{deploy}:2024.03.11-{build}",
                        "imagePullPolicy": "IfNotPresent",
                        "name": "{container}",
                        "ports": [
                            {{
                                "containerPort": 8080,
                                "name": "http",
                                "protocol": "TCP"
                            }}
                        ],
                        "resources": {{
                            "limits": {{
                                "memory": "2Gi"
                            }},
                            "requests": {{
                                "cpu": "500m",
                                "memory": "2Gi"
                            }}
                        }},
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File"
                    }}
                ],
                "dnsPolicy": "ClusterFirst",
                "nodeName": "{node}",
                "restartPolicy": "Always",
                "schedulerName": "default-scheduler",
                "serviceAccountName": "{deploy}",
                "terminationGracePeriodSeconds": 30
            }},
            "status": {{
                "conditions": [
                    {{
                        "lastProbeTime": null,
                        "lastTransitionTime": "{start}",
                        "status": "True",
                        "type": "Initialized"
                    }},
                    {{
                        "lastProbeTime": null,
                        "lastTransitionTime": "{start}",
                        "status": "{ready_cap}",
                        "type": "Ready"
                    }},
                    {{
                        "lastProbeTime": null,
                        "lastTransitionTime": "{start}",
                        "status": "True",
                        "type": "PodScheduled"
                    }}
                ],
                "containerStatuses": [
                    {{
                        "containerID": "containerd://{cid}",
                        "image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/{deploy}:2024.03.11-{build}",
                        "imageID": "123456789012.dkr.ecr.us-east-1.amazonaws.com/{deploy}@sha256:{digest}",
                        "lastState": {last_state},
                        "name": "{container}",
                        "ready": {ready},
                        "restartCount": {restarts},
                        "started": {ready},
                        "state": {state}
                    }}
                ],
                "hostIP": "10.0.{hip}",
                "phase": "Running",
                "podIP": "{ip}",
                "qosClass": "Burstable",
                "startTime": "{start}"
            }}
        }}{comma}
"#,
            hash = rs.rsplit('-').next().unwrap_or(""),
            owner = super::synth::uuid(&mut rng),
            rv = rng.range(100_000_000, 999_999_999),
            build = rng.range(1, 9),
            container = if deploy == "search-indexer" {
                "indexer"
            } else {
                "app"
            },
            ready_cap = if ready == "true" { "True" } else { "False" },
            cid = rng.hex(64),
            digest = rng.hex(64),
            hip = rng.range(0, 8),
            comma = if i + 1 == count { "" } else { "," },
        );
    }
    g.out.push_str("    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n");
    g.needle("\"name\": \"search-indexer-5c8d7f9b4-qk2lm\"");
    g.needle("\"reason\": \"OOMKilled\"");
    g.needle("\"restartCount\": 14");
    g.rng = rng;
    g.finish("kubectl get pods -n team-data -o json", Family::Json)
}

/// `curl -s 'es:9200/logs-checkout-*/_search?size=1000'`: Elasticsearch's
/// compact JSON on one line; one hit is the error the model looks for.
fn es_search(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let mut rng = g.rng.clone();
    let count = size / 460;
    let bad = middle_of(&mut rng, count);
    g.out.push_str("{\"took\":412,\"timed_out\":false,\"_shards\":{\"total\":12,\"successful\":12,\"skipped\":0,\"failed\":0},\"hits\":{\"total\":{\"value\":10000,\"relation\":\"gte\"},\"max_score\":null,\"hits\":[");
    for i in 0..count {
        let ms = 1_710_165_737_431u64 - i as u64 * rng.range(50, 900);
        let (level, message, trace, status, extra) = if i == bad {
            (
                "error",
                "payment provider timeout after 30000ms (provider=adyen, attempt=3)".to_owned(),
                "4bf92f3577b34da6a3ce929d0e0e4736".to_owned(),
                504,
                ",\"error.type\":\"java.net.SocketTimeoutException\",\"error.stack_trace\":\"java.net.SocketTimeoutException: Read timed out\\n\\tat java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:288)\\n\\tat com.acme.checkout.psp.AdyenClient.authorise(AdyenClient.java:141)\"",
            )
        } else {
            let route = *rng.pick(&[
                "/v1/cart",
                "/v1/checkout/session",
                "/v1/checkout/address",
                "/v1/shipping/quote",
            ]);
            (
                "info",
                format!(
                    "{} {route} completed",
                    if rng.chance(0.5) { "GET" } else { "POST" }
                ),
                rng.hex(32),
                200,
                "",
            )
        };
        let _ = write!(
            g.out,
            "{comma}{{\"_index\":\".ds-logs-checkout-2024.03.11-000042\",\"_id\":\"{id}\",\"_score\":null,\"_source\":{{\"@timestamp\":\"{ts}\",\"log.level\":\"{level}\",\"message\":\"{message}\",\"service.name\":\"checkout\",\"service.version\":\"2024.03.11-4\",\"host.name\":\"checkout-{pod}\",\"trace.id\":\"{trace}\",\"transaction.id\":\"{tx}\",\"http.response.status_code\":{status},\"event.duration\":{dur}{extra}}},\"sort\":[{ms}]}}",
            comma = if i == 0 { "" } else { "," },
            id = rng.alnum(20),
            ts = iso(ms % 86_400_000),
            pod = rng.kube_suffix(5),
            tx = rng.hex(16),
            dur = rng.range(1_000_000, 900_000_000),
        );
    }
    g.out.push_str("]}}");
    g.needle("\"trace.id\":\"4bf92f3577b34da6a3ce929d0e0e4736\"");
    g.needle("payment provider timeout after 30000ms (provider=adyen, attempt=3)");
    g.rng = rng;
    g.finish(
        "curl -s es:9200/logs-checkout-*/_search?size=1000",
        Family::Json,
    )
}

const APPS: &[&str] = &[
    "apps/admin",
    "apps/api",
    "apps/storefront",
    "apps/worker",
    "packages/ui",
];
const FEATURES: &[&str] = &[
    "account",
    "addresses",
    "cart",
    "catalog",
    "checkout",
    "coupons",
    "inventory",
    "invoices",
    "orders",
    "payments",
    "reviews",
    "search",
    "shipping",
    "wishlist",
];
const TS_NAMES: &[&str] = &[
    "api", "hooks", "index", "queries", "schema", "service", "store", "types",
];

/// `git diff origin/main...HEAD` of a refactor PR: 300 files change one
/// import, the lockfile churns, and one file changes behaviour.
fn diff_refactor(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.0, 1.0);
    let file_diff = |g: &mut Gen| {
        let n = g.n as usize;
        g.n += 1;
        let file = format!(
            "{}/src/{}/{}.ts",
            APPS[n / (FEATURES.len() * TS_NAMES.len()) % APPS.len()],
            FEATURES[n / TS_NAMES.len() % FEATURES.len()],
            TS_NAMES[n % TS_NAMES.len()],
        );
        let (a, b) = (g.rng.hex(7), g.rng.hex(7));
        let line = g.rng.range(1, 30);
        let word = *g.rng.pick(JS_WORDS);
        w!(g, "diff --git a/{file} b/{file}");
        w!(g, "index {a}..{b} 100644");
        w!(g, "--- a/{file}");
        w!(g, "+++ b/{file}");
        w!(g, "@@ -{line},7 +{line},7 @@");
        w!(g, " import {{ z }} from \"zod\";");
        w!(g, "-import {{ http }} from \"../../lib/http\";");
        w!(g, "+import {{ http }} from \"@acme/net\";");
        w!(g, " import type {{ {} }} from \"./types\";", word);
        w!(g, " ");
        w!(
            g,
            " export async function load{}(id: string) {{",
            g.rng.range(1, 99)
        );
        w!(g, "   const res = await http.get(`/{word}/${{id}}`);");
    };
    // The lockfile sorts between apps/ and packages/: its hunks fill 30% to
    // 50% of the diff; the one change that matters is anywhere else.
    let key = at[0];
    let key_diff = |g: &mut Gen| {
        g.lines(&[
            "diff --git a/apps/api/src/payments/refund.ts b/apps/api/src/payments/refund.ts",
            "index 9d2c1e7..41f0b3a 100644",
            "--- a/apps/api/src/payments/refund.ts",
            "+++ b/apps/api/src/payments/refund.ts",
            "@@ -1,14 +1,14 @@",
            " import { z } from \"zod\";",
            "-import { http } from \"../../lib/http\";",
            "+import { http } from \"@acme/net\";",
            " import { ledger } from \"../ledger\";",
            " ",
            " const REFUND_TIMEOUT_MS = 15_000;",
            "-const MAX_REFUND_RETRIES = 5;",
            "+const MAX_REFUND_RETRIES = 0;",
            " ",
            " export async function refund(paymentId: string, amountCents: number) {",
        ]);
    };
    g.fill(key.min(0.3), file_diff);
    if key < 0.3 {
        key_diff(&mut g);
        g.fill(0.3, file_diff);
    }
    w!(g, "diff --git a/package-lock.json b/package-lock.json");
    w!(g, "index 4c1e8f5..9a0e2f7 100644");
    w!(g, "--- a/package-lock.json");
    w!(g, "+++ b/package-lock.json");
    g.fill(0.5, |g| {
        let line = 1000 + g.clock * 13;
        g.clock += 1;
        let (name, old, new) = *g.rng.pick(&[
            ("axios", "1.6.7", "1.6.8"),
            ("follow-redirects", "1.15.5", "1.15.6"),
            ("@babel/traverse", "7.23.9", "7.24.0"),
            ("postcss", "8.4.33", "8.4.35"),
            ("caniuse-lite", "1.0.30001587", "1.0.30001597"),
            ("electron-to-chromium", "1.4.668", "1.4.699"),
        ]);
        w!(g, "@@ -{line},9 +{line},9 @@");
        w!(g, "     \"node_modules/{name}\": {{");
        w!(g, "-      \"version\": \"{old}\",");
        w!(
            g,
            "-      \"resolved\": \"https://registry.npmjs.org/{name}/-/{name}-{old}.tgz\","
        );
        w!(g, "-      \"integrity\": \"sha512-{}==\",", g.rng.alnum(86));
        w!(g, "+      \"version\": \"{new}\",");
        w!(
            g,
            "+      \"resolved\": \"https://registry.npmjs.org/{name}/-/{name}-{new}.tgz\","
        );
        w!(g, "+      \"integrity\": \"sha512-{}==\",", g.rng.alnum(86));
        w!(g, "       \"dev\": true,");
    });
    if key >= 0.3 {
        g.fill(key, file_diff);
        key_diff(&mut g);
    }
    g.needle("diff --git a/apps/api/src/payments/refund.ts b/apps/api/src/payments/refund.ts");
    g.needle("-const MAX_REFUND_RETRIES = 5;");
    g.needle("+const MAX_REFUND_RETRIES = 0;");
    g.fill(1.0, file_diff);
    g.finish("git diff origin/main...HEAD", Family::Diff)
}

const AUTHORS: &[&str] = &[
    "Dana Kim <dana.kim@acme.io>",
    "Mo Hassan <mo@acme.io>",
    "Lucia Vidal <lucia.vidal@acme.io>",
    "Tomas Petrov <tpetrov@acme.io>",
    "renovate[bot] <29139614+renovate[bot]@users.noreply.github.com>",
];
const SUBJECTS: &[&str] = &[
    "Log slow queries above 200ms",
    "Add retry with jitter to the outbox relay",
    "Bump sqlx from 0.7.3 to 0.7.4",
    "Split pool metrics by database",
    "Fix clippy lints",
    "Rename Config::db_url to database_url",
    "Close idle connections after 10 minutes",
];

/// `git log -p -n 200 -- crates/db`: commits with their patches; one of
/// them cut the pool's connection timeout.
fn git_log_patch(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let at = spots(&mut g.rng, 1, 0.0, 1.0);
    let commit = |g: &mut Gen| {
        let sha = g.rng.hex(40);
        let author = *g.rng.pick(AUTHORS);
        let subject = *g.rng.pick(SUBJECTS);
        let day = 28 - (g.out.len() * 27 / g.size) as u64;
        w!(g, "commit {sha}");
        w!(g, "Author: {author}");
        w!(
            g,
            "Date:   Mon Feb {day} {:02}:{:02}:{:02} 2024 +0100",
            g.rng.range(8, 20),
            g.rng.range(0, 60),
            g.rng.range(0, 60)
        );
        w!(g, "");
        w!(g, "    {subject}");
        w!(g, "");
        for _ in 0..g.rng.range(1, 4) {
            let file = *g.rng.pick(&[
                "pool.rs",
                "migrate.rs",
                "query.rs",
                "metrics.rs",
                "config.rs",
            ]);
            let line = g.rng.range(10, 400);
            let ident = *g.rng.pick(&["conn", "row", "tx", "stmt", "batch"]);
            w!(
                g,
                "diff --git a/crates/db/src/{file} b/crates/db/src/{file}"
            );
            w!(g, "index {}..{} 100644", g.rng.hex(7), g.rng.hex(7));
            w!(g, "--- a/crates/db/src/{file}");
            w!(g, "+++ b/crates/db/src/{file}");
            w!(g, "@@ -{line},6 +{line},7 @@ impl Db {{");
            w!(
                g,
                "     pub async fn fetch_{ident}(&self, id: i64) -> Result<Row, DbError> {{"
            );
            w!(g, "-        let {ident} = self.pool.acquire().await?;");
            w!(
                g,
                "+        let {ident} = self.pool.acquire().await.map_err(DbError::Acquire)?;"
            );
            w!(
                g,
                "+        metrics::counter!(\"db_acquire_total\").increment(1);"
            );
            w!(
                g,
                "         sqlx::query_as(\"SELECT * FROM {ident}s WHERE id = $1\")"
            );
            w!(g, "             .bind(id)");
            w!(g, "             .fetch_one(&mut *{ident})");
        }
    };
    g.fill(at[0], commit);
    g.lines(&[
        "commit 9f2c1e7a4b1d4c55a9e02f7d1b6c3e908f1c2e7a",
        "Author: Mo Hassan <mo@acme.io>",
        "Date:   Mon Feb 12 16:21:07 2024 +0100",
        "",
        "    Lower connection pool timeout to 2s",
        "    ",
        "    Fail fast instead of queueing requests behind a saturated pool.",
        "",
        "diff --git a/crates/db/src/pool.rs b/crates/db/src/pool.rs",
        "index 3b7d1e0..c94f2a8 100644",
        "--- a/crates/db/src/pool.rs",
        "+++ b/crates/db/src/pool.rs",
        "@@ -40,7 +40,7 @@ pub fn build(cfg: &Config) -> PgPoolOptions {",
        "     PgPoolOptions::new()",
        "         .max_connections(cfg.max_connections)",
        "-        .acquire_timeout(Duration::from_secs(30))",
        "+        .acquire_timeout(Duration::from_secs(2))",
        "         .idle_timeout(Some(Duration::from_secs(600)))",
    ]);
    g.needle("commit 9f2c1e7a4b1d4c55a9e02f7d1b6c3e908f1c2e7a");
    g.needle("    Lower connection pool timeout to 2s");
    g.needle("+        .acquire_timeout(Duration::from_secs(2))");
    g.fill(1.0, commit);
    g.finish("git log -p -n 200 -- crates/db", Family::Diff)
}
