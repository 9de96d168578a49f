//! Realistic documents: a GitHub issues list, `kubectl get pods -o json`,
//! an MCP tool result with one huge string, and a 4 MiB list of records.

use serde_json::{Value, json};

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
                s.push_str(if self.next().is_multiple_of(9) {
                    ".\n\n"
                } else {
                    " "
                });
            }
            s.push_str(WORDS[self.next() as usize % WORDS.len()]);
        }
        s
    }
}

/// `GET /repos/{owner}/{repo}/issues`: 30 issues in GitHub's shape.
pub fn github_issues() -> Value {
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
pub fn kubectl_pods() -> Value {
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
pub fn mcp_huge_string() -> Value {
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
pub fn records() -> Value {
    let mut rng = Lcg(4);
    let rows: Vec<Value> = (0..20_000)
        .map(|i| {
            json!({
                "id": i, "name": format!("user-{i}"), "email": format!("user{i}@example.com"),
                "active": rng.next().is_multiple_of(2), "score": (rng.next() % 10_000) as f64 / 100.0,
                "tags": ["customer", if i % 3 == 0 { "beta" } else { "stable" }],
                "created_at": "2024-11-02T17:45:12Z",
                "address": { "city": "Lisbon", "zip": format!("{:04}-{:03}", rng.next() % 10_000, rng.next() % 1000) },
                "notes": rng.words(3),
            })
        })
        .collect();
    Value::Array(rows)
}

/// `GET /repos/{owner}/{repo}/actions/runs` with `n` runs in GitHub's shape
/// (the repository objects trimmed), all successes but the run at `failure`
/// (if any), which failed. With `noisy`, some commit titles mention errors
/// they fixed.
pub fn github_runs(n: usize, failure: Option<usize>, noisy: bool) -> Value {
    let mut rng = Lcg(5);
    let repo = "https://api.github.com/repos/acme/shop";
    let runs: Vec<Value> = (0..n)
        .map(|i| {
            let id = 13_000_000_000u64 + 1000 * i as u64 + rng.next() % 1000;
            let sha = format!("{:016x}{:016x}{:08x}", rng.next(), rng.next(), rng.next() % 0xffff_ffff);
            let failed = failure == Some(i);
            let login = format!("dev{}", rng.next() % 50);
            const AREAS: [&str; 6] = ["checkout", "cart", "deps", "docs", "search", "billing"];
            let area = AREAS[rng.next() as usize % AREAS.len()];
            let title = if rng.next().is_multiple_of(7) && noisy {
                format!("Fix error handling in {area}")
            } else {
                format!("Update {area} for release 1.{}", rng.next() % 50)
            };
            json!({
                "id": id,
                "name": "CI",
                "node_id": "WFR_kwLOAbCdEf8AAAADAbCdEf",
                "head_branch": "main",
                "head_sha": sha,
                "path": ".github/workflows/ci.yml",
                "display_title": title,
                "run_number": 5000 + i,
                "event": "push",
                "status": "completed",
                "conclusion": if failed { "failure" } else { "success" },
                "workflow_id": 48_123_456,
                "check_suite_id": 31_000_000_000u64 + i as u64,
                "check_suite_node_id": "CS_kwDOAbCdEf8AAAAHNm9xyz",
                "url": format!("{repo}/actions/runs/{id}"),
                "html_url": format!("https://github.com/acme/shop/actions/runs/{id}"),
                "pull_requests": [],
                "created_at": "2025-03-14T09:26:53Z",
                "updated_at": "2025-03-14T09:31:07Z",
                "actor": {
                    "login": login, "id": rng.next() % 100_000, "node_id": "MDQ6VXNlcjEyMzQ1",
                    "avatar_url": "https://avatars.githubusercontent.com/u/12345?v=4",
                    "url": format!("https://api.github.com/users/{login}"),
                    "html_url": format!("https://github.com/{login}"),
                    "type": "User", "site_admin": false,
                },
                "run_attempt": 1,
                "referenced_workflows": [],
                "run_started_at": "2025-03-14T09:26:53Z",
                "jobs_url": format!("{repo}/actions/runs/{id}/jobs"),
                "logs_url": format!("{repo}/actions/runs/{id}/logs"),
                "check_suite_url": format!("{repo}/check-suites/{}", 31_000_000_000u64 + i as u64),
                "artifacts_url": format!("{repo}/actions/runs/{id}/artifacts"),
                "cancel_url": format!("{repo}/actions/runs/{id}/cancel"),
                "rerun_url": format!("{repo}/actions/runs/{id}/rerun"),
                "previous_attempt_url": null,
                "workflow_url": format!("{repo}/actions/workflows/48123456"),
                "head_commit": {
                    "id": sha, "tree_id": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
                    "message": title, "timestamp": "2025-03-14T09:26:41Z",
                    "author": { "name": "Dev", "email": format!("{login}@acme.dev") },
                    "committer": { "name": "GitHub", "email": "noreply@github.com" },
                },
                "repository": {
                    "id": 123_456_789, "node_id": "R_kgDOAbCdEf", "name": "shop", "full_name": "acme/shop",
                    "private": true, "html_url": "https://github.com/acme/shop", "fork": false, "url": repo,
                },
            })
        })
        .collect();
    json!({ "total_count": n, "workflow_runs": runs })
}
