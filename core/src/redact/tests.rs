//! Unit tests of the detectors, one small case each; the corpus and the
//! properties are in `core/tests/all/redact_corpus.rs`.

use std::borrow::Cow;

use super::*;

fn redactor() -> Redactor {
    Redactor::new(&["hunter2-literal".to_owned()]).unwrap()
}

/// `text` redacted, checked against the streaming form.
fn red(text: &str) -> String {
    let r = redactor();
    let (out, counts) = r.redact(text);
    let mut stream = r.stream();
    let mut streamed = String::new();
    for line in text.split_inclusive('\n') {
        stream.push_line(line, &mut streamed);
    }
    assert_eq!(streamed, out, "stream differs for {text:?}");
    assert_eq!(stream.counts(), &counts);
    assert_eq!(out.matches('\n').count(), text.matches('\n').count());
    out.into_owned()
}

/// Assert that `text` comes back unchanged and borrowed.
fn same(text: &str) {
    let (out, counts) = redactor().redact(text);
    assert!(
        matches!(out, Cow::Borrowed(_)),
        "changed: {text:?} -> {out:?}"
    );
    assert!(counts.is_empty());
}

fn rep(s: &str, n: usize) -> String {
    s.repeat(n)
}

#[test]
fn aws_access_key() {
    assert_eq!(
        red("id=AKIAIOSFODNN7EXAMPLE\n"),
        "id=[redacted: aws-access-key]\n"
    );
    assert_eq!(
        red("\"ASIAZZZZZZZZZZZZZZZZ\","),
        "\"[redacted: aws-access-key]\","
    );
    same("AKIAEXAMPLE AKIAIOSFODNN7EXAMPLEX xAKIAIOSFODNN7EXAMPLE akiaiosfodnn7example");
}

#[test]
fn aws_secret_key() {
    let key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    assert_eq!(
        red(&format!("aws_secret_access_key = {key}\n")),
        "aws_secret_access_key = [redacted: aws-secret-key]\n"
    );
    assert_eq!(
        red(&format!("\"SecretAccessKey\": \"{key}\",")),
        "\"SecretAccessKey\": \"[redacted: aws-secret-key]\","
    );
    // Another length: still a secret.
    assert_eq!(
        red("AWS_SECRET_ACCESS_KEY=abcdefgh1234"),
        "AWS_SECRET_ACCESS_KEY=[redacted: secret]"
    );
    same(&format!("the digest {key} alone"));
}

#[test]
fn google_github_gitlab() {
    let google = format!("AIza{}", rep("Sy0_-", 7));
    assert_eq!(
        red(&format!("key={google}&q=1")),
        "key=[redacted: google-api-key]&q=1"
    );
    assert_eq!(
        red(&format!("t ghp_{} x", rep("a1", 18))),
        "t [redacted: github-token] x"
    );
    assert_eq!(
        red(&format!("github_pat_{}", rep("11AB_cd", 12))),
        "[redacted: github-token]"
    );
    assert_eq!(
        red(&format!("glpat-{}", rep("x1_y", 5))),
        "[redacted: gitlab-token]"
    );
    same("ghp_abc ghp_1234 glpat-short AIzaShort");
}

#[test]
fn openai_and_anthropic() {
    let ant = format!("sk-ant-api03-{}AA", rep("Ab1-_", 19));
    assert_eq!(
        red(&format!("ANTHROPIC_API_KEY={ant}\n")),
        "ANTHROPIC_API_KEY=[redacted: anthropic-key]\n"
    );
    let admin = format!("sk-ant-admin01-{}", rep("Zz9", 30));
    assert_eq!(red(&admin), "[redacted: anthropic-key]");
    let proj = format!("sk-proj-{}", rep("Ab1_-", 30));
    assert_eq!(red(&format!("key: {proj}")), "key: [redacted: openai-key]");
    let legacy = format!("sk-{}", rep("A1b2", 12));
    assert_eq!(
        red(&format!("OPENAI_API_KEY={legacy}")),
        "OPENAI_API_KEY=[redacted: openai-key]"
    );
    same("task-list sk-learn skip-ant-api03-x sk-ant-foo sk-proj-setup disk-usage");
    same(&format!("sk-{}", rep("A1b2", 11)));
}

#[test]
fn slack() {
    assert_eq!(
        red("SLACK_BOT_TOKEN=xoxb-1111111111-2222222222-abcdefABCDEF1234"),
        "SLACK_BOT_TOKEN=[redacted: slack-token]"
    );
    assert_eq!(
        red("url: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"),
        "url: https://hooks.slack.com/services/[redacted: slack-webhook]"
    );
    same("xoxb-short https://hooks.slack.com/services/ xoxp-abcdefghijklmnopqrstuvwxyz");
}

#[test]
fn jwt() {
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLWZha2UtZmFrZQ";
    assert_eq!(red(&format!("token {jwt} ok")), "token [redacted: jwt] ok");
    // Plain base64 of JSON is not a JWT.
    same("eyJhbGciOiJIUzI1NiJ9 eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9+/== eyJhbGciOiJIUzI1NiJ9.e30");
}

#[test]
fn bearer() {
    assert_eq!(
        red("Authorization: Bearer abc123def456\r\n"),
        "Authorization: Bearer [redacted: bearer-token]\r\n"
    );
    assert_eq!(
        red("curl -H 'authorization: bearer tok_live_0123456789' https://x"),
        "curl -H 'authorization: bearer [redacted: bearer-token]' https://x"
    );
    assert_eq!(
        red(r#"{"Authorization": "Bearer abcdefgh.ijk"}"#),
        r#"{"Authorization": "[redacted: bearer-token]"}"#.replace("\"[", "\"Bearer [")
    );
    // A JWT after Bearer is named as a JWT.
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig";
    assert_eq!(
        red(&format!("Authorization: Bearer {jwt}")),
        "Authorization: Bearer [redacted: jwt]"
    );
    same("Use a Bearer token in the header. Bearer tokens expire.");
    same("Authorization: Bearer $TOKEN\nAuthorization: Bearer <token>\nAuthorization: Bearer ****");
    same("WWW-Authenticate: Bearer realm=\"api\"");
}

#[test]
fn passwords_and_secrets() {
    assert_eq!(red("password=hunter2x"), "password=[redacted: password]");
    assert_eq!(
        red("DB_PASSWORD=s3cr3t!\n"),
        "DB_PASSWORD=[redacted: password]\n"
    );
    assert_eq!(
        red(r#"{"password": "p@ss w0rd"}"#),
        r#"{"password": "[redacted: password]"}"#
    );
    assert_eq!(
        red("  password: hunter2x\n"),
        "  password: [redacted: password]\n"
    );
    assert_eq!(
        red("mysql --password s3cret --user x"),
        "mysql --password [redacted: password] --user x"
    );
    assert_eq!(
        red("client_secret=abcdefgh12345678&x=1"),
        "client_secret=[redacted: secret]&x=1"
    );
    assert_eq!(
        red("X-Api-Key: 0123456789abcdef"),
        "X-Api-Key: [redacted: secret]"
    );
    assert_eq!(
        red(r#"{\"token\": \"abcdefgh12345678\"}"#),
        r#"{\"token\": \"[redacted: secret]\"}"#
    );
    assert_eq!(
        red("Server=db;User Id=sa;Password=Hunter2!;"),
        "Server=db;User Id=sa;Password=[redacted: password];"
    );
}

#[test]
fn not_passwords() {
    same("password: <required>\npassword=\npassword=${DB_PASSWORD}\npassword=$PASSWORD\n");
    same("password=%s\npassword: ****\npassword: <redacted>\n\"password\": null\npassword=None\n");
    same("SELECT password_hash FROM users;\nReset your password: click here\n");
    same("if password == other:\npassword = self.password\npassword=password\n");
    same("pub password: String,\npassword: Option<String>,\npassword = get_password()\n");
    same("PWD=/home/me/src\nOLDPWD=/tmp\ncd $(pwd)\n--password-stdin\n");
    same("password:  16 bytes\ntoken:     32 bytes\nmax_tokens=4096\ntokens: 1234\n");
    same("Type: Secret (a volume populated by a Secret)\nSecretName:  app-creds\n");
    same("password: YOUR_PASSWORD\ntoken=${{ secrets.GITHUB_TOKEN }}\n");
}

#[test]
fn url_password() {
    assert_eq!(
        red("DATABASE_URL=postgres://app:s3cretpw@db:5432/app"),
        "DATABASE_URL=postgres://app:[redacted: password]@db:5432/app"
    );
    assert_eq!(
        red(&format!(
            "https://x-access-token:ghs_{}@github.com/o/r",
            rep("a1", 18)
        )),
        "https://x-access-token:[redacted: github-token]@github.com/o/r"
    );
    same(
        "ssh://git@github.com:22/o/r http://[::1]:8080/x@y https://host:8080/a@b redis://:password@h",
    );
}

#[test]
fn azure() {
    let key = format!("{}==", rep("AbCd1234+/", 8));
    assert_eq!(
        red(&format!(
            "DefaultEndpointsProtocol=https;AccountName=x;AccountKey={key};EndpointSuffix=core.windows.net"
        )),
        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=[redacted: azure-key];EndpointSuffix=core.windows.net"
    );
}

#[test]
fn pem_block() {
    let body = rep("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", 1);
    let text = format!(
        "key:\n  -----BEGIN RSA PRIVATE KEY-----\n  {body}\n  {body}\r\n  AQAB==\n  -----END RSA PRIVATE KEY-----\nnext\n"
    );
    let want = "key:\n  -----BEGIN RSA PRIVATE KEY-----\n  [redacted: private-key]\n  \
                [redacted: private-key]\r\n  [redacted: private-key]\n  -----END RSA PRIVATE KEY-----\nnext\n";
    assert_eq!(red(&text), want);
    assert_eq!(redactor().redact(&text).1.get(kind::PRIVATE_KEY), 1);
    assert_eq!(red(want), want);
    // One line, in JSON.
    let json = format!(
        r#""private_key": "-----BEGIN PRIVATE KEY-----\n{body}\n{body}\n-----END PRIVATE KEY-----\n","#
    );
    assert_eq!(
        red(&json),
        r#""private_key": "-----BEGIN PRIVATE KEY-----\n[redacted: private-key]\n-----END PRIVATE KEY-----\n","#
    );
    // A truncated block ends at the first line that is not base64.
    let cut = format!("-----BEGIN PRIVATE KEY-----\n{body}\n... (truncated)\nnext line\n");
    assert_eq!(
        red(&cut),
        "-----BEGIN PRIVATE KEY-----\n[redacted: private-key]\n... (truncated)\nnext line\n"
    );
    same(&format!(
        "-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----\n"
    ));
    same(&format!(
        "-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n"
    ));
    same("It must start with -----BEGIN RSA PRIVATE KEY----- and end with the END line.\nok\n");
}

#[test]
fn literals() {
    assert_eq!(red("x hunter2-literal y"), "x [redacted: literal] y");
    assert_eq!(
        red("password=hunter2-literal"),
        "password=[redacted: literal]"
    );
    same("HUNTER2-LITERAL");
    assert!(matches!(
        Redactor::new(&["abc".into()]),
        Err(CapError::InvalidSettings(_))
    ));
    assert!(matches!(
        Redactor::new(&["ab\ncd".into()]),
        Err(CapError::InvalidSettings(_))
    ));
    assert!(matches!(
        Redactor::new(&["x".repeat(513)]),
        Err(CapError::InvalidSettings(_))
    ));
    assert!(matches!(
        Redactor::new(&vec!["abcd".into(); 65]),
        Err(CapError::InvalidSettings(_))
    ));
    assert!(matches!(
        Redactor::new(&["redacted".into()]),
        Err(CapError::InvalidSettings(_))
    ));
    let err = Redactor::new(&["ok-one".into(), "no".into()]).unwrap_err();
    assert!(err.message().contains("literal 2") && !err.message().contains("no\""));
}

#[test]
fn counts_are_sorted_and_exact() {
    let text = format!(
        "password=abcdef\npassword=ghijkl\nAKIAIOSFODNN7EXAMPLE ghp_{}\n",
        rep("a1", 18)
    );
    let (_, counts) = redactor().redact(&text);
    let all: Vec<_> = counts.iter().collect();
    assert_eq!(
        all,
        [("aws-access-key", 1), ("github-token", 1), ("password", 2)]
    );
    assert_eq!(counts.total(), 4);
}

#[test]
fn long_lines_are_cut_into_units() {
    let line = format!("{}é{}\n", "a".repeat(UNIT - 1), "b".repeat(UNIT));
    let pieces: Vec<_> = units(&line).collect();
    assert_eq!(pieces.len(), 3);
    assert_eq!(pieces[0].len(), UNIT - 1);
    assert_eq!(pieces.concat(), line);
    // A secret across a cut is not found, in both forms alike.
    let text = format!("{}AKIAIOSFODNN7EXAMPLE\n", "x ".repeat(UNIT / 2 - 2));
    assert_eq!(red(&text), text);
}

#[test]
fn passwd_naming_the_user_database_is_not_a_password() {
    // /etc/nsswitch.conf, and the `passwd` command's messages.
    for line in [
        "passwd:         files systemd\n",
        "passwd: compat\n",
        "passwd:\tfiles altfiles\n",
        "passwd: files [SUCCESS=merge] systemd\n",
        "# passwd: files ldap\n",
        "passwd: all authentication tokens updated successfully.\n",
        "passwd: Authentication token manipulation error\n",
    ] {
        same(line);
    }
    // A password under that key, and keys that only end with it, still are.
    assert_eq!(red("passwd: Xk2-pw0rd\n"), "passwd: [redacted: password]\n");
    assert_eq!(
        red("db_passwd: files\n"),
        "db_passwd: [redacted: password]\n"
    );
    same("{\"passwd\": \"files systemd\"}");
    assert_eq!(
        red("{\"passwd\": \"my own words\"}"),
        "{\"passwd\": \"[redacted: password]\"}"
    );
}

/// A `BEGIN` line whose body was redacted on the line itself has shown its
/// body: a header-like line after it (`Digest: ...`) ends the block, then as
/// when the text is redacted again, so that redacting is idempotent.
#[test]
fn a_begin_line_with_its_body_redacted_ends_at_a_header_line_both_times() {
    let body = "QkVHSU5PUEVOU1NIUFJJVkFURUtFWUJFR0lOT1BFTlNTSA";
    let text = format!("-----BEGIN OPENSSH PRIVATE KEY-----{body}\nDigest: sha256:9f86d0\n");
    let once = red(&text);
    assert_eq!(
        once,
        "-----BEGIN OPENSSH PRIVATE KEY-----[redacted: private-key]\nDigest: sha256:9f86d0\n"
    );
    same(&once);
}

/// An encrypted key's headers say so and are no secret: they stay, the
/// base64 after them is redacted, and a second redaction changes nothing. A
/// header-like line with no base64 after it (`Digest: ...` after a quoted
/// marker) stays too, and so does the short line after it, both times.
#[test]
fn pem_headers_stay_and_redacting_twice_changes_nothing() {
    let body = "MIIEowIBAAKCAQEAvb3Fq9Zz1xWb8PqJxkqQ2rT6yJ0nV4m3sL7d";
    let text = format!(
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\
         DEK-Info: AES-128-CBC,3F17F5316E2BAC89A2F5B3E6C1D0E7F4\n\n{body}\n{body}\nAQAB==\n\
         -----END RSA PRIVATE KEY-----\n"
    );
    let once = red(&text);
    assert_eq!(
        once,
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\
         DEK-Info: AES-128-CBC,3F17F5316E2BAC89A2F5B3E6C1D0E7F4\n\n[redacted: private-key]\n\
         [redacted: private-key]\n[redacted: private-key]\n-----END RSA PRIVATE KEY-----\n"
    );
    same(&once);

    let quoted = "    -----BEGIN EC PRIVATE KEY-----\n\nDigest: sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n\nA\n";
    same(quoted);
}
