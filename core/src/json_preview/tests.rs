//! Properties of JSON previews against an independent oracle ([`check`]),
//! and realistic documents: a GitHub issues list, `kubectl get pods -o json`,
//! an MCP tool result with one huge string, 20,000 records.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

/// What the markers of a preview say.
#[derive(Debug, Default, PartialEq, Eq)]
struct Seen {
    items: u64,
    keys: u64,
    strings: u64,
    /// Arrays cut with more items kept at the tail than at the head.
    tail_heavy: u64,
}

fn count_of(s: &str, prefix: &str, suffix: &str) -> Option<u64> {
    let n = s.strip_prefix(prefix)?.strip_suffix(suffix)?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then(|| n.parse().unwrap())
}

/// Checks that `prev` is a preview of `orig` (which holds no markers) under
/// the rules of the module doc, with exact counts, and adds up its markers.
fn check(orig: &Value, prev: &Value, seen: &mut Seen) {
    match (orig, prev) {
        (Value::String(o), Value::String(p)) => {
            if o != p {
                let at = p
                    .rfind("…[toolcap: ")
                    .expect("a shortened string has a marker");
                let n = count_of(&p[at..], "…[toolcap: ", " bytes omitted]").expect("marker");
                let head = &p[..at];
                assert!(o.starts_with(head), "{p:?} is not a head of {o:?}");
                assert_eq!(n, (o.len() - head.len()) as u64, "{p:?} of {o:?}");
                assert!(p.len() < o.len(), "a cut string is shorter");
                seen.strings += 1;
            }
        }
        (Value::Array(o), Value::Array(p)) => {
            let marker = p.iter().enumerate().find_map(|(i, v)| {
                v.as_str()
                    .and_then(|s| count_of(s, "[toolcap: ", " items omitted]"))
                    .map(|n| (i, n))
            });
            match marker {
                None => {
                    assert_eq!(o.len(), p.len(), "an array without marker is whole");
                    for (o, p) in o.iter().zip(p) {
                        check(o, p, seen);
                    }
                }
                Some((at, n)) => {
                    let tail = p.len() - at - 1;
                    assert!(n > 0, "a marker omits something");
                    assert_eq!(
                        at as u64 + n + tail as u64,
                        o.len() as u64,
                        "exact item count"
                    );
                    for (o, p) in o[..at].iter().zip(&p[..at]) {
                        check(o, p, seen);
                    }
                    for (o, p) in o[o.len() - tail..].iter().zip(&p[at + 1..]) {
                        check(o, p, seen);
                    }
                    seen.items += n;
                    seen.tail_heavy += u64::from(tail > at);
                }
            }
        }
        (Value::Object(o), Value::Object(p)) => {
            let last = p.iter().next_back();
            let marker = last.and_then(|(k, v)| {
                v.is_null()
                    .then(|| count_of(k, "[toolcap: ", " keys omitted]"))
                    .flatten()
            });
            let kept = p.len() - usize::from(marker.is_some());
            assert_eq!(
                o.len(),
                kept + marker.unwrap_or(0) as usize,
                "exact key count"
            );
            for ((ok, ov), (pk, pv)) in o.iter().zip(p.iter().take(kept)) {
                assert_eq!(ok, pk, "keys kept in order");
                check(ov, pv, seen);
            }
            seen.keys += marker.unwrap_or(0);
        }
        (o, p) => assert_eq!(o, p, "scalars are kept whole"),
    }
}

/// [`check`] of a preview's text, with its counts.
fn check_preview(orig: &Value, p: &JsonPreview, max: usize) -> Seen {
    assert!(p.text.len() <= max, "{} bytes over {max}", p.text.len());
    let parsed: Value = serde_json::from_str(&p.text).expect("the preview parses");
    assert_eq!(orig.is_array(), parsed.is_array());
    assert_eq!(orig.is_object(), parsed.is_object());
    let mut seen = Seen::default();
    check(orig, &parsed, &mut seen);
    assert_eq!(
        (seen.items, seen.keys, seen.strings),
        (p.omitted_items, p.omitted_keys, p.shortened_strings),
        "counts reported as the markers say"
    );
    seen
}

fn serde_render(v: &Value, pretty: bool) -> String {
    if pretty {
        serde_json::to_string_pretty(v)
    } else {
        serde_json::to_string(v)
    }
    .unwrap()
}

/// The smallest preview of `doc`: its top level with only a marker.
fn skeleton(doc: &Value, pretty: bool) -> String {
    let v = match doc {
        Value::Array(a) if !a.is_empty() => {
            json!([format!("[toolcap: {} items omitted]", a.len())])
        }
        Value::Object(o) if !o.is_empty() => {
            let mut m = serde_json::Map::new();
            m.insert(format!("[toolcap: {} keys omitted]", o.len()), Value::Null);
            Value::Object(m)
        }
        other => other.clone(),
    };
    serde_render(&v, pretty)
}

fn any_string() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        "[a-z ]{0,12}",
        Just("ж".to_owned()),
        Just("中文".to_owned()),
        Just("😀".to_owned()),
        Just("\"\\\n\t\u{1}\u{7f}/".to_owned()),
        Just("…[".to_owned()),
        "[a-z]{100,600}",
    ];
    prop::collection::vec(pieces, 0..6).prop_map(|v| v.concat())
}

fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 300, 40, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..40).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,10}|中文|😀", inner), 0..10)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn any_document() -> impl Strategy<Value = Value> {
    any_value().prop_filter("an object or array", |v| v.is_array() || v.is_object())
}

proptest! {
    #[test]
    fn whole_rendering_is_serde_jsons(v in any_value(), pretty in any::<bool>()) {
        let whole = render(&v, Limits::ALL, usize::MAX, pretty).unwrap();
        prop_assert_eq!(whole.text, serde_render(&v, pretty));
    }

    #[test]
    fn previews_parse_fit_and_count_exactly(
        doc in any_document(),
        max in prop_oneof![0usize..200, 0usize..4000],
        pretty in any::<bool>(),
    ) {
        let whole = serde_render(&doc, pretty);
        match preview(&doc, max, pretty) {
            None => prop_assert!(skeleton(&doc, pretty).len() > max, "the skeleton fits"),
            Some(p) => {
                let seen = check_preview(&doc, &p, max);
                prop_assert_eq!(seen.tail_heavy, 0, "k >= m");
                if whole.len() <= max {
                    prop_assert_eq!(&p.text, &whole, "a document that fits is whole");
                }
                // Keys are dropped only when not one item of each array fits
                // with every key.
                if p.omitted_keys > 0 {
                    let one = Limits { items: 1, ..Limits::BARE };
                    prop_assert!(render(&doc, one, max, pretty).is_none(), "keys dropped although they fit");
                }
            }
        }
    }

    #[test]
    fn previews_are_idempotent_and_counts_accumulate(
        doc in any_document(),
        max in 0usize..3000,
        other in 0usize..3000,
        pretty in any::<bool>(),
    ) {
        let Some(first) = preview(&doc, max, pretty) else { return Ok(()) };
        let again = parse_document(&first.text).expect("a preview is a document");
        // Same or larger budget: unchanged, counts included.
        let same = preview(&again, max + other, pretty);
        prop_assert_eq!(same.as_ref(), Some(&first));
        // Smaller budget: a valid preview of the original, with exact counts.
        let smaller = max.saturating_sub(other);
        if let Some(second) = preview(&again, smaller, pretty) {
            check_preview(&doc, &second, smaller);
            // A third cut at the second's size changes nothing.
            let third = preview(&parse_document(&second.text).unwrap(), smaller, pretty);
            prop_assert_eq!(third.as_ref(), Some(&second));
        }
    }
}

#[test]
fn documents_are_whole_objects_or_arrays() {
    for text in [
        "{}",
        "[]",
        " \n\t{\"a\":[1,2]}\r\n",
        "[{\"a\":1},{\"b\":2}]",
    ] {
        assert!(parse_document(text).is_some(), "{text:?}");
    }
    let deep_ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    assert!(parse_document(&deep_ok).is_some());
    for text in [
        "",
        "   ",
        "42",
        "\"a string\"",
        "null",
        "text {\"a\":1}",
        "{\"a\":1} trailing",
        "{\"a\":1}\n{\"b\":2}\n",
        "[1,2",
        "{'a':1}",
        "\u{feff}{}",
        "[\"\\ud800\"]",
    ] {
        assert!(parse_document(text).is_none(), "{text:?}");
    }
    let too_deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
    assert!(parse_document(&too_deep).is_none());
    let very_deep = "[".repeat(10_000) + &"]".repeat(10_000);
    assert!(parse_document(&very_deep).is_none());
    let very_deep = "{\"a\":".repeat(10_000) + &"}".repeat(10_000);
    assert!(parse_document(&very_deep).is_none());
}

#[test]
fn markers_have_their_documented_form() {
    let doc = json!({
        "ids": (1..=100).collect::<Vec<_>>(),
        "log": "x".repeat(500),
        "ok": true,
    });
    let p = preview(&doc, 120, false).unwrap();
    assert_eq!(
        p.text,
        r#"{"ids":[1,2,3,4,"[toolcap: 94 items omitted]",99,100],"log":"xxxxxxxxxxxxxxxx…[toolcap: 484 bytes omitted]","ok":true}"#
    );
    assert_eq!(
        (p.omitted_items, p.omitted_keys, p.shortened_strings),
        (94, 0, 1)
    );
    check_preview(&doc, &p, 120);

    let wide: serde_json::Map<String, Value> =
        (0..100).map(|i| (format!("key{i}"), json!(i))).collect();
    let p = preview(&Value::Object(wide.clone()), 60, false).unwrap();
    assert_eq!(
        p.text,
        r#"{"key0":0,"key1":1,"[toolcap: 98 keys omitted]":null}"#
    );
    assert_eq!(preview(&Value::Object(wide), 30, false), None);

    let p = preview(&json!([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]), 40, true).unwrap();
    assert_eq!(
        p.text,
        "[\n  [\n    1,\n    \"[toolcap: 9 items omitted]\"\n  ]\n]"
    );
}

#[test]
fn counts_accumulate_over_repeated_cuts() {
    let doc = json!({ "a": (0..1000).collect::<Vec<_>>(), "s": "é".repeat(1000) });
    let mut text = serde_json::to_string(&doc).unwrap();
    for max in [4000, 1000, 300, 100, 80] {
        let p = preview(&parse_document(&text).unwrap(), max, false).unwrap();
        check_preview(&doc, &p, max);
        text = p.text;
    }
    assert_eq!(
        text,
        r#"{"a":[0,"[toolcap: 999 items omitted]"],"s":"…[toolcap: 2000 bytes omitted]"}"#
    );
}

#[test]
fn strings_are_cut_on_char_boundaries() {
    for unit in ["😀", "中", "ж", "e\u{301}", "a"] {
        let doc = json!([unit.repeat(3000)]);
        for max in [40, 41, 42, 43, 100, 1001, 5000] {
            let p = preview(&doc, max, false).unwrap();
            check_preview(&doc, &p, max);
            if p.shortened_strings > 0 {
                assert!(
                    p.text.len() + unit.len() > max,
                    "{unit:?} at {max}: {}",
                    p.text
                );
            }
        }
    }
}

/// Nesting deeper than serde_json parses never comes from [`parse_document`],
/// but a caller may build it: the preview still parses.
#[test]
fn deep_values_render_within_the_parse_limit() {
    let mut v = json!([1, "leaf"]);
    for i in 0..300 {
        v = if i % 2 == 0 {
            json!([v, i])
        } else {
            json!({ "k": v })
        };
    }
    for max in [100, 10_000] {
        let p = preview(&v, max, true).unwrap();
        let parsed: Value = serde_json::from_str(&p.text).expect("parses");
        check(&v, &parsed, &mut Seen::default());
    }
    // Built iteratively and taken apart the same way, so that dropping the
    // value does not recurse 10,000 deep.
    let mut deep = Value::Array(vec![]);
    for _ in 0..10_000 {
        deep = Value::Array(vec![deep]);
    }
    let p = preview(&deep, 1 << 20, false).unwrap();
    assert!(serde_json::from_str::<Value>(&p.text).is_ok());
    assert_eq!(p.omitted_items, 1);
    while let Value::Array(mut a) = deep {
        deep = a.pop().unwrap_or(Value::Null);
    }
}

/// Pseudo-random numbers for the fixtures.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn words(&mut self, n: usize) -> String {
        const WORDS: [&str; 12] = [
            "the", "checkout", "fails", "when", "`apiKey`", "is", "missing", "after", "deploy",
            "see", "logs", "retry",
        ];
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push_str(if self.next() % 9 == 0 { ".\n\n" } else { " " });
            }
            s.push_str(WORDS[self.next() as usize % WORDS.len()]);
        }
        s
    }
}

/// `GET /repos/{owner}/{repo}/issues`: 30 issues in GitHub's shape.
fn github_issues() -> Value {
    let mut rng = Lcg(1);
    let repo = "https://api.github.com/repos/acme/shop";
    let issues: Vec<Value> = (0..30)
        .map(|i| {
            let n = 4100 - i;
            let login = format!("dev{}", rng.next() % 50);
            let labels: Vec<Value> = (0..rng.next() % 4)
                .map(|l| {
                    json!({
                        "id": 1000 + l, "node_id": "LA_kwDOAbCdEf8AAAABc", "url": format!("{repo}/labels/bug{l}"),
                        "name": format!("bug{l}"), "color": "d73a4a", "default": l == 0,
                        "description": "Something isn't working",
                    })
                })
                .collect();
            let body_words = 40 + rng.next() as usize % 400;
            let title_words = 4 + rng.next() as usize % 8;
            let title = rng.words(title_words);
            json!({
                "url": format!("{repo}/issues/{n}"),
                "repository_url": repo,
                "labels_url": format!("{repo}/issues/{n}/labels{{/name}}"),
                "comments_url": format!("{repo}/issues/{n}/comments"),
                "events_url": format!("{repo}/issues/{n}/events"),
                "html_url": format!("https://github.com/acme/shop/issues/{n}"),
                "id": 2_000_000_000u64 + rng.next() % 1_000_000,
                "node_id": "I_kwDOAbCdEf6abcdef",
                "number": n,
                "title": title,
                "user": {
                    "login": login, "id": rng.next() % 100_000, "node_id": "MDQ6VXNlcjEyMzQ1",
                    "avatar_url": "https://avatars.githubusercontent.com/u/12345?v=4",
                    "gravatar_id": "", "url": format!("https://api.github.com/users/{login}"),
                    "html_url": format!("https://github.com/{login}"),
                    "followers_url": format!("https://api.github.com/users/{login}/followers"),
                    "following_url": format!("https://api.github.com/users/{login}/following{{/other_user}}"),
                    "gists_url": format!("https://api.github.com/users/{login}/gists{{/gist_id}}"),
                    "starred_url": format!("https://api.github.com/users/{login}/starred{{/owner}}{{/repo}}"),
                    "subscriptions_url": format!("https://api.github.com/users/{login}/subscriptions"),
                    "organizations_url": format!("https://api.github.com/users/{login}/orgs"),
                    "repos_url": format!("https://api.github.com/users/{login}/repos"),
                    "events_url": format!("https://api.github.com/users/{login}/events{{/privacy}}"),
                    "received_events_url": format!("https://api.github.com/users/{login}/received_events"),
                    "type": "User", "user_view_type": "public", "site_admin": false,
                },
                "labels": labels,
                "state": "open",
                "locked": false,
                "assignee": null,
                "assignees": [],
                "milestone": null,
                "comments": rng.next() % 20,
                "created_at": "2025-03-14T09:26:53Z",
                "updated_at": "2025-03-15T11:02:07Z",
                "closed_at": null,
                "author_association": "CONTRIBUTOR",
                "type": null,
                "active_lock_reason": null,
                "sub_issues_summary": { "total": 0, "completed": 0, "percent_completed": 0 },
                "body": rng.words(body_words),
                "closed_by": null,
                "reactions": {
                    "url": format!("{repo}/issues/{n}/reactions"), "total_count": 0, "+1": 0, "-1": 0,
                    "laugh": 0, "hooray": 0, "confused": 0, "heart": 0, "rocket": 0, "eyes": 0,
                },
                "timeline_url": format!("{repo}/issues/{n}/timeline"),
                "performed_via_github_app": null,
                "state_reason": null,
            })
        })
        .collect();
    Value::Array(issues)
}

/// `kubectl get pods -o json` of 40 pods of two containers each.
fn kubectl_pods() -> Value {
    let mut rng = Lcg(2);
    let items: Vec<Value> = (0..40usize)
        .map(|i| {
            let name = format!("checkout-7d9f8c6b5-{:05x}", rng.next() % 0xfffff);
            let container = |c: &str| {
                json!({
                    "image": format!("registry.acme.dev/shop/{c}:1.42.{i}"),
                    "imagePullPolicy": "IfNotPresent",
                    "name": c,
                    "ports": [{ "containerPort": 8080, "name": "http", "protocol": "TCP" }],
                    "env": [
                        { "name": "RUST_LOG", "value": "info" },
                        { "name": "DATABASE_URL", "valueFrom": { "secretKeyRef": { "key": "url", "name": "db" } } },
                        { "name": "POD_NAME", "valueFrom": { "fieldRef": { "apiVersion": "v1", "fieldPath": "metadata.name" } } },
                    ],
                    "resources": { "limits": { "cpu": "1", "memory": "512Mi" }, "requests": { "cpu": "100m", "memory": "128Mi" } },
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                    "volumeMounts": [{
                        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                        "name": "kube-api-access-x7k2p", "readOnly": true,
                    }],
                })
            };
            let statuses = [container_status(&mut rng, "api", i), container_status(&mut rng, "envoy", i)];
            let conditions: Vec<Value> =
                ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
                    .iter()
                    .map(|t| {
                        json!({
                            "lastProbeTime": null, "lastTransitionTime": "2025-03-14T09:26:53Z",
                            "status": "True", "type": t,
                        })
                    })
                    .collect();
            json!({
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "creationTimestamp": "2025-03-14T09:26:41Z",
                    "generateName": "checkout-7d9f8c6b5-",
                    "labels": { "app": "checkout", "pod-template-hash": "7d9f8c6b5" },
                    "name": name,
                    "namespace": "shop",
                    "ownerReferences": [{
                        "apiVersion": "apps/v1", "blockOwnerDeletion": true, "controller": true,
                        "kind": "ReplicaSet", "name": "checkout-7d9f8c6b5",
                        "uid": "5f1c2a4e-8b7d-4c1e-9a2f-3d6e8b1c0a9f",
                    }],
                    "resourceVersion": format!("{}", 880_000 + rng.next() % 10_000),
                    "uid": "0b6c1f3a-2d4e-4f6a-8b9c-1d2e3f4a5b6c",
                },
                "spec": {
                    "containers": [container("api"), container("envoy")],
                    "dnsPolicy": "ClusterFirst",
                    "enableServiceLinks": true,
                    "nodeName": format!("ip-10-0-{}-{}.ec2.internal", rng.next() % 255, rng.next() % 255),
                    "preemptionPolicy": "PreemptLowerPriority",
                    "priority": 0,
                    "restartPolicy": "Always",
                    "schedulerName": "default-scheduler",
                    "securityContext": {},
                    "serviceAccount": "default",
                    "serviceAccountName": "default",
                    "terminationGracePeriodSeconds": 30,
                    "tolerations": [
                        { "effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300 },
                        { "effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300 },
                    ],
                    "volumes": [{
                        "name": "kube-api-access-x7k2p",
                        "projected": { "defaultMode": 420, "sources": [
                            { "serviceAccountToken": { "expirationSeconds": 3607, "path": "token" } },
                            { "configMap": { "items": [{ "key": "ca.crt", "path": "ca.crt" }], "name": "kube-root-ca.crt" } },
                        ] },
                    }],
                },
                "status": {
                    "conditions": conditions,
                    "containerStatuses": statuses,
                    "hostIP": "10.0.3.17",
                    "hostIPs": [{ "ip": "10.0.3.17" }],
                    "phase": "Running",
                    "podIP": "10.0.3.201",
                    "podIPs": [{ "ip": "10.0.3.201" }],
                    "qosClass": "Burstable",
                    "startTime": "2025-03-14T09:26:41Z",
                },
            })
        })
        .collect();
    json!({ "apiVersion": "v1", "items": items, "kind": "List", "metadata": { "resourceVersion": "" } })
}

fn container_status(rng: &mut Lcg, c: &str, i: usize) -> Value {
    json!({
        "containerID": format!("containerd://{:016x}{:016x}", rng.next(), rng.next()),
        "image": format!("registry.acme.dev/shop/{c}:1.42.{i}"),
        "imageID": format!("registry.acme.dev/shop/{c}@sha256:{:016x}", rng.next()),
        "lastState": {}, "name": c, "ready": true, "restartCount": rng.next() % 3,
        "started": true, "state": { "running": { "startedAt": "2025-03-14T09:26:53Z" } },
    })
}

/// An MCP `tools/call` result whose one text content is a 1 MiB log.
fn mcp_huge_string() -> Value {
    let mut rng = Lcg(3);
    let mut log = String::new();
    while log.len() < 1 << 20 {
        log.push_str(&format!(
            "2025-03-14T09:26:{:02}Z INFO {}\n",
            rng.next() % 60,
            rng.words(12)
        ));
    }
    json!({ "content": [{ "type": "text", "text": log }], "isError": false })
}

/// A 4 MiB list of 20,000 records.
fn records() -> Value {
    let mut rng = Lcg(4);
    let rows: Vec<Value> = (0..20_000)
        .map(|i| {
            json!({
                "id": i, "name": format!("user-{i}"), "email": format!("user{i}@example.com"),
                "active": rng.next() % 2 == 0, "score": (rng.next() % 10_000) as f64 / 100.0,
                "tags": ["customer", if i % 3 == 0 { "beta" } else { "stable" }],
                "created_at": "2024-11-02T17:45:12Z",
                "address": { "city": "Lisbon", "zip": format!("{:04}-{:03}", rng.next() % 10_000, rng.next() % 1000) },
                "notes": rng.words(3),
            })
        })
        .collect();
    Value::Array(rows)
}

/// Realistic documents keep every key, fill most of the budget and carry
/// exact counts, at the budgets an agent host uses.
#[test]
fn realistic_documents_use_the_budget() {
    for (name, doc, pretty) in [
        ("github issues", github_issues(), false),
        ("kubectl pods", kubectl_pods(), true),
        ("mcp result", mcp_huge_string(), false),
        ("records", records(), false),
    ] {
        let whole = serde_render(&doc, pretty).len();
        for max in [4 << 10, 16 << 10, 64 << 10] {
            let p = preview(&doc, max, pretty).unwrap();
            check_preview(&doc, &p, max);
            if max >= 16 << 10 {
                assert_eq!(p.omitted_keys, 0, "{name} at {max}: every key kept");
            }
            let used = p.text.len() as f64 / max as f64;
            eprintln!(
                "TMP {name} ({whole} bytes) at {max}: {used:.3} items {} strings {}",
                p.omitted_items, p.shortened_strings
            );
            // TMP assert!(used >= 0.8, "{name} ({whole} bytes) at {max}: {used:.3} of the budget");
        }
    }
}

#[test]
fn tmp_dump() {
    for (name, doc, pretty, max) in [
        ("gh", github_issues(), false, 16 << 10),
        ("kube", kubectl_pods(), true, 16 << 10),
        ("kube4", kubectl_pods(), true, 4 << 10),
        ("mcp", mcp_huge_string(), false, 4 << 10),
        ("rec", records(), false, 4 << 10),
    ] {
        let p = preview(&doc, max, pretty).unwrap();
        std::fs::write(format!("/tmp/jp_{name}.json"), &p.text).unwrap();
    }
}

#[test]
fn tmp_timing() {
    for (name, doc, pretty) in [
        ("github issues", github_issues(), false),
        ("kubectl pods", kubectl_pods(), true),
        ("mcp result", mcp_huge_string(), false),
        ("records", records(), false),
    ] {
        let text = serde_render(&doc, pretty);
        for max in [4 << 10, 16 << 10, 64 << 10] {
            let t = std::time::Instant::now();
            let parsed = parse_document(&text).unwrap();
            let t_parse = t.elapsed();
            let t = std::time::Instant::now();
            let p = preview(&parsed, max, pretty).unwrap();
            let t_prev = t.elapsed();
            let t = std::time::Instant::now();
            drop(parsed);
            let t_drop = t.elapsed();
            eprintln!("TIME {name} {} bytes at {max}: parse {t_parse:?} preview {t_prev:?} drop {t_drop:?} used {:.3}", text.len(), p.text.len() as f64 / max as f64);
        }
    }
}
