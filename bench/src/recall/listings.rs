//! Listings and tables, infrastructure tools, and pretty JSON replies:
//! `find`, a CSV export, `kubectl describe`, `terraform plan`, `gh run list
//! --json`, `kubectl get pods -o json` with a pending pod, an API reply
//! written by Python's `json.tool` (4 spaces, `\u` escapes), and a large
//! table of numbers. Needles are what a model acts on: the row, resource
//! or item that differs, as the tool wrote it.

use std::fmt::Write as _;

use super::corpus::{Case, Family};
use super::synth::{Gen, Rng, iso, uuid};
use crate::corpus::KIB;

pub(super) fn cases() -> Vec<Case> {
    vec![
        find_listing(71, 160 * KIB),
        csv_export(72, 300 * KIB),
        kubectl_describe(73, 220 * KIB),
        terraform_plan(74, 260 * KIB),
        gh_run_list(75, 120 * KIB),
        pending_pods_json(76, 600 * KIB),
        python_json_reply(77, 180 * KIB),
        numbers_table(78, 400 * KIB),
    ]
}

/// A spot between 15% and 85% of `count`.
fn middle(rng: &mut Rng, count: usize) -> usize {
    count * 15 / 100 + rng.index(count * 70 / 100)
}

const DIRS: &[&str] = &[
    "services/billing",
    "services/orders",
    "services/search",
    "libs/common",
    "libs/db",
    "tools/ci",
];
const WORDS: &[&str] = &[
    "models",
    "views",
    "tasks",
    "utils",
    "handlers",
    "schema",
    "client",
    "config",
    "signals",
    "admin",
    "serializers",
    "api",
];

/// `find . -name '*.py'`: paths, one unreadable directory in the middle.
fn find_listing(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let total = size / 52;
    let denied = middle(&mut g.rng, total);
    for i in 0..total {
        if i == denied {
            g.line("find: './services/billing/.pytest_cache/v/cache': Permission denied");
            continue;
        }
        let dir = *g.rng.pick(DIRS);
        let sub = *g.rng.pick(WORDS);
        let file = *g.rng.pick(WORDS);
        let n = g.rng.range(0, 40);
        let line = format!("./{dir}/{sub}/{file}_{n:02}_{}.py", g.rng.alnum(4));
        g.line(&line);
    }
    g.line("./services/orders/tests/test_refund_rounding.py");
    g.needle("find: './services/billing/.pytest_cache/v/cache': Permission denied");
    g.needle("./services/orders/tests/test_refund_rounding.py");
    g.exit_code = 1;
    g.finish("find . -name '*.py'", Family::Listing)
}

/// `psql -c "\copy (select ...) to stdout csv header"`: orders, one
/// charged back.
fn csv_export(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    g.line("id,created_at,customer_email,amount_cents,currency,status,failure_code");
    let total = size / 86;
    let bad = middle(&mut g.rng, total);
    for i in 0..total {
        let t = iso(i as u64 * 37_000);
        let (status, code) = if i == bad {
            ("chargeback", "fraudulent")
        } else if g.rng.chance(0.03) {
            ("refunded", "")
        } else {
            ("paid", "")
        };
        let id = if i == bad {
            "ord_7Hq2Lk9xW3".to_owned()
        } else {
            format!("ord_{}", g.rng.alnum(10))
        };
        let email = format!("{}@example.com", g.rng.alnum(8).to_lowercase());
        let amount = g.rng.range(500, 250_000);
        let line = format!("{id},{t}Z,{email},{amount},EUR,{status},{code}");
        g.line(&line);
    }
    g.needle("id,created_at,customer_email,amount_cents,currency,status,failure_code");
    g.needle("ord_7Hq2Lk9xW3");
    g.needle("chargeback,fraudulent");
    g.finish(
        "psql -c \"\\copy (select * from orders) to stdout csv header\"",
        Family::Listing,
    )
}

/// `kubectl describe pods -n team-data`: many pods, one OOM-killed and
/// crash-looping.
fn kubectl_describe(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let total = size / 2900;
    let bad = middle(&mut g.rng, total);
    for i in 0..total {
        let name = if i == bad {
            "search-indexer-5c8d7f9b4-qk2lm".to_owned()
        } else {
            format!(
                "search-api-{}-{}",
                g.rng.kube_suffix(9),
                g.rng.kube_suffix(5)
            )
        };
        let ip = format!("10.0.{}.{}", g.rng.range(0, 8), g.rng.range(2, 250));
        let (state, last, ready, restarts, events) = if i == bad {
            (
                "Waiting\n      Reason:       CrashLoopBackOff",
                "Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n      Started:      Mon, 11 Mar 2024 14:39:52 +0000\n      Finished:     Mon, 11 Mar 2024 14:41:07 +0000",
                "False",
                14,
                format!(
                    "  Type     Reason     Age                 From     Message\n  ----     ------     ----                ----     -------\n  Normal   Pulled     41m (x15 over 3h)   kubelet  Container image \"ecr/search-indexer:2024.03.11-4\" already present on machine\n  Warning  BackOff    3m (x182 over 41m)  kubelet  Back-off restarting failed container indexer in pod {name}_team-data\n"
                ),
            )
        } else {
            (
                "Running\n      Started:      Mon, 11 Mar 2024 09:12:44 +0000",
                "",
                "True",
                0,
                "  <none>\n".to_owned(),
            )
        };
        let last = if last.is_empty() {
            String::new()
        } else {
            format!("    Last State:     {last}\n")
        };
        let _ = write!(
            g.out,
            "Name:             {name}\nNamespace:        team-data\nPriority:         0\nService Account:  search\nNode:             ip-10-0-{a}-{b}.ec2.internal/10.0.{a}.{b}\nStart Time:       Mon, 11 Mar 2024 09:12:40 +0000\nLabels:           app.kubernetes.io/name=search\n                  pod-template-hash={hash}\nAnnotations:      prometheus.io/scrape: true\nStatus:           Running\nIP:               {ip}\nIPs:\n  IP:           {ip}\nControlled By:  ReplicaSet/search-{hash}\nContainers:\n  app:\n    Container ID:   containerd://{cid}\n    Image:          123456789012.dkr.ecr.us-east-1.amazonaws.com/search:2024.03.11-4\n    Port:           8080/TCP\n    Host Port:      0/TCP\n    State:          {state}\n{last}    Ready:          {ready}\n    Restart Count:  {restarts}\n    Limits:\n      memory:  2Gi\n    Requests:\n      cpu:     500m\n      memory:  2Gi\n    Environment:\n      ES_URL:  http://elasticsearch.team-data.svc:9200\n    Mounts:\n      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-{m} (ro)\nConditions:\n  Type              Status\n  Initialized       True\n  Ready             {ready}\n  ContainersReady   {ready}\n  PodScheduled      True\nQoS Class:                   Burstable\nNode-Selectors:              <none>\nTolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s\n                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s\nEvents:\n{events}\n\n",
            a = g.rng.range(0, 8),
            b = g.rng.range(2, 250),
            hash = g.rng.kube_suffix(10),
            cid = g.rng.hex(64),
            m = g.rng.kube_suffix(5),
        );
    }
    g.needle("Name:             search-indexer-5c8d7f9b4-qk2lm");
    g.needle("Reason:       OOMKilled");
    g.needle("Back-off restarting failed container indexer in pod search-indexer-5c8d7f9b4-qk2lm_team-data");
    g.finish("kubectl describe pods -n team-data", Family::Kubectl)
}

/// `terraform plan`: many in-place tag updates, one database replaced.
fn terraform_plan(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    g.lines(&[
        "aws_vpc.main: Refreshing state... [id=vpc-0a1b2c3d4e5f60718]",
        "",
        "Terraform used the selected providers to generate the following execution",
        "plan. Resource actions are indicated with the following symbols:",
        "  ~ update in-place",
        "-/+ destroy and then create replacement",
        "",
        "Terraform will perform the following actions:",
        "",
    ]);
    let total = size / 640;
    let bad = middle(&mut g.rng, total);
    for i in 0..total {
        if i == bad {
            g.lines(&[
                "  # aws_db_instance.orders must be replaced",
                "-/+ resource \"aws_db_instance\" \"orders\" {",
                "      ~ arn                     = \"arn:aws:rds:eu-west-1:123456789012:db:orders\" -> (known after apply)",
                "      ~ engine_version          = \"14.10\" -> \"15.5\" # forces replacement",
                "      ~ id                      = \"orders\" -> (known after apply)",
                "        # (41 unchanged attributes hidden)",
                "    }",
                "",
            ]);
            continue;
        }
        let name = format!("{}_{}", g.rng.pick(WORDS), g.rng.alnum(5).to_lowercase());
        let kind = *g.rng.pick(&[
            "aws_s3_bucket",
            "aws_iam_role",
            "aws_security_group",
            "aws_lambda_function",
        ]);
        let _ = write!(
            g.out,
            "  # {kind}.{name} will be updated in-place\n  ~ resource \"{kind}\" \"{name}\" {{\n        id       = \"{id}\"\n      ~ tags     = {{\n          ~ \"CostCenter\" = \"cc-{old}\" -> \"cc-{new}\"\n            \"Team\"       = \"platform\"\n        }}\n      ~ tags_all = {{\n          ~ \"CostCenter\" = \"cc-{old}\" -> \"cc-{new}\"\n            # (1 unchanged element hidden)\n        }}\n        # (12 unchanged attributes hidden)\n    }}\n\n",
            id = g.rng.alnum(16).to_lowercase(),
            old = g.rng.range(100, 999),
            new = g.rng.range(100, 999),
        );
    }
    let changes = total - 1;
    let _ = write!(
        g.out,
        "Plan: 1 to add, {changes} to change, 1 to destroy.\n\n─────────────────────────────────────────────────────────────────────────────\n\nNote: You didn't use the -out option to save this plan, so Terraform can't\nguarantee to take exactly these actions if you run \"terraform apply\" now.\n"
    );
    g.needle("# aws_db_instance.orders must be replaced");
    g.needle("~ engine_version          = \"14.10\" -> \"15.5\" # forces replacement");
    g.needle(format!(
        "Plan: 1 to add, {changes} to change, 1 to destroy."
    ));
    g.finish("terraform plan", Family::Build)
}

/// `gh run list --limit 600 --json conclusion,createdAt,databaseId,...`:
/// gh's pretty JSON, keys sorted, runs in progress at the top and one
/// failure among successes.
fn gh_run_list(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let total = size / 330;
    let bad = middle(&mut g.rng, total);
    g.out.push_str("[\n");
    for i in 0..total {
        let (conclusion, status) = match i {
            0 | 1 => ("", "in_progress"),
            _ if i == bad => ("failure", "completed"),
            _ if g.rng.chance(0.08) => ("cancelled", "completed"),
            _ => ("success", "completed"),
        };
        let id = if i == bad {
            8_231_197_365
        } else {
            8_231_199_000 - i as u64 * 7
        };
        let branch = if i == bad {
            "hotfix/refund-rounding"
        } else {
            *g.rng
                .pick(&["main", "renovate/eslint-9.x", "feature/search-facets"])
        };
        let t = iso(43_200_000 - i as u64 * 60_000);
        let _ = write!(
            g.out,
            "  {{\n    \"conclusion\": \"{conclusion}\",\n    \"createdAt\": \"{t}Z\",\n    \"databaseId\": {id},\n    \"displayTitle\": \"{title}\",\n    \"event\": \"push\",\n    \"headBranch\": \"{branch}\",\n    \"name\": \"CI\",\n    \"status\": \"{status}\",\n    \"workflowName\": \"CI\"\n  }}{comma}\n",
            t = &t[..19],
            title = if i == bad {
                "Fix refund rounding for partial captures"
            } else {
                "Bump deps"
            },
            comma = if i + 1 == total { "" } else { "," },
        );
    }
    g.out.push_str("]\n");
    g.needle("\"conclusion\": \"failure\"");
    g.needle("\"databaseId\": 8231197365");
    g.needle("\"headBranch\": \"hotfix/refund-rounding\"");
    g.finish(
        "gh run list --limit 600 --json conclusion,createdAt,databaseId,displayTitle,event,headBranch,name,status,workflowName",
        Family::Json,
    )
}

/// `kubectl get pods -o json`: 4-space JSON, one GPU pod pending because
/// no node fits it.
fn pending_pods_json(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let total = size / 1500;
    let bad = middle(&mut g.rng, total);
    g.out
        .push_str("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n");
    for i in 0..total {
        let name = if i == bad {
            "trainer-llm-7f9c6d5b8-x2x9p".to_owned()
        } else {
            format!(
                "inference-{}-{}",
                g.rng.kube_suffix(9),
                g.rng.kube_suffix(5)
            )
        };
        let status = if i == bad {
            "{\n                \"conditions\": [\n                    {\n                        \"lastProbeTime\": null,\n                        \"lastTransitionTime\": \"2024-03-11T14:02:10Z\",\n                        \"message\": \"0/12 nodes are available: 12 Insufficient nvidia.com/gpu. preemption: 0/12 nodes are available: 12 No preemption victims found for incoming pod.\",\n                        \"reason\": \"Unschedulable\",\n                        \"status\": \"False\",\n                        \"type\": \"PodScheduled\"\n                    }\n                ],\n                \"phase\": \"Pending\",\n                \"qosClass\": \"Burstable\"\n            }".to_owned()
        } else {
            format!(
                "{{\n                \"hostIP\": \"10.0.{a}.{b}\",\n                \"phase\": \"Running\",\n                \"podIP\": \"10.1.{a}.{b}\",\n                \"qosClass\": \"Burstable\",\n                \"startTime\": \"2024-03-11T09:12:44Z\"\n            }}",
                a = g.rng.range(0, 8),
                b = g.rng.range(2, 250),
            )
        };
        let _ = write!(
            g.out,
            "        {{\n            \"apiVersion\": \"v1\",\n            \"kind\": \"Pod\",\n            \"metadata\": {{\n                \"creationTimestamp\": \"2024-03-11T09:12:40Z\",\n                \"labels\": {{\n                    \"app\": \"{app}\"\n                }},\n                \"name\": \"{name}\",\n                \"namespace\": \"ml\",\n                \"uid\": \"{uid}\"\n            }},\n            \"spec\": {{\n                \"containers\": [\n                    {{\n                        \"image\": \"ghcr.io/acme/{app}:1.8.2\",\n                        \"name\": \"main\",\n                        \"resources\": {{\n                            \"limits\": {{\n                                \"nvidia.com/gpu\": \"1\"\n                            }}\n                        }}\n                    }}\n                ],\n                \"nodeName\": \"gpu-node-{n}\"\n            }},\n            \"status\": {status}\n        }}{comma}\n",
            app = if i == bad { "trainer-llm" } else { "inference" },
            uid = uuid(&mut g.rng),
            n = g.rng.range(1, 13),
            comma = if i + 1 == total { "" } else { "," },
        );
    }
    g.out.push_str("    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n");
    g.needle("\"name\": \"trainer-llm-7f9c6d5b8-x2x9p\"");
    g.needle("0/12 nodes are available: 12 Insufficient nvidia.com/gpu.");
    g.needle("\"phase\": \"Pending\"");
    g.finish("kubectl get pods -n ml -o json", Family::Json)
}

/// `curl -s .../api/orders/?page_size=500 | python -m json.tool`: 4-space
/// indentation and `\u` escapes, amounts as written; one failed order.
fn python_json_reply(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    let total = size / 330;
    let bad = middle(&mut g.rng, total);
    let _ = write!(
        g.out,
        "{{\n    \"count\": {total},\n    \"next\": null,\n    \"results\": [\n"
    );
    for i in 0..total {
        let (customer, status, code) = if i == bad {
            ("Jos\\u00e9 Garc\\u00eda", "failed", "\"card_declined\"")
        } else {
            (
                *g.rng.pick(&[
                    "Anna Schmidt",
                    "Li Wei",
                    "Fran\\u00e7ois Martin",
                    "Sam Okafor",
                ]),
                "paid",
                "null",
            )
        };
        let _ = write!(
            g.out,
            "        {{\n            \"id\": {id},\n            \"customer\": \"{customer}\",\n            \"amount\": \"{euros}.{cents:02}\",\n            \"currency\": \"EUR\",\n            \"status\": \"{status}\",\n            \"failure_code\": {code},\n            \"created\": \"{t}+00:00\"\n        }}{comma}\n",
            id = 90_000 + i,
            euros = g.rng.range(5, 900),
            cents = g.rng.range(0, 100),
            t = &iso(i as u64 * 91_000)[..19],
            comma = if i + 1 == total { "" } else { "," },
        );
    }
    g.out.push_str("    ]\n}\n");
    g.needle("\"customer\": \"Jos\\u00e9 Garc\\u00eda\"");
    g.needle("\"failure_code\": \"card_declined\"");
    g.finish(
        "curl -s https://shop.internal/api/orders/?page_size=500 | python -m json.tool",
        Family::Json,
    )
}

/// `sqlite3 -header -column runs.db 'select * from epoch_metrics'`: a
/// large table of numbers; the loss turns to NaN once.
fn numbers_table(seed: u64, size: usize) -> Case {
    let mut g = Gen::new(seed, size);
    g.line("epoch  step    loss      val_loss  lr          grad_norm  tokens_per_s");
    g.line("-----  ------  --------  --------  ----------  ---------  ------------");
    let total = size / 72;
    let bad = middle(&mut g.rng, total);
    let mut loss = 4.2f64;
    for i in 0..total {
        loss = (loss * 0.9995).max(1.1);
        let (l, grad) = if i == bad {
            ("nan".to_owned(), "inf".to_owned())
        } else {
            (
                format!("{:.4}", loss + g.rng.frac(-0.05, 0.05)),
                format!("{:.3}", g.rng.frac(0.2, 1.8)),
            )
        };
        let line = format!(
            "{:<5}  {:<6}  {:<8}  {:<8.4}  {:<10.3e}  {:<9}  {}",
            i / 500,
            i * 32,
            l,
            loss + 0.1,
            3e-4 * (1.0 - i as f64 / total as f64),
            grad,
            g.rng.range(41_000, 43_000)
        );
        g.line(line.trim_end());
    }
    let last = g
        .out
        .trim_end()
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .to_owned();
    g.needle("epoch  step    loss      val_loss  lr          grad_norm  tokens_per_s");
    g.needle(format!("{:<5}  {:<6}  nan", bad / 500, bad * 32));
    g.needle(last);
    g.finish(
        "sqlite3 -header -column runs.db 'select * from epoch_metrics'",
        Family::Listing,
    )
}
