//! The token corpus: the recall corpus's tool outputs (crate::recall), and
//! generated samples of what else reaches a model: source code (Rust,
//! Python, TypeScript), prose and logs in Chinese, Japanese, Russian and
//! Arabic, emoji-heavy chat, base64 blobs, hex dumps, CSV, YAML and
//! Markdown. Fixed seeds, no data files, no network: the same bytes on every
//! machine.
//!
//! Every generated kind has two texts: a *fit* text and a *held-out* text,
//! drawn from disjoint halves of the kind's vocabulary (sentences,
//! identifiers, values) and a different seed; of the recall outputs, every
//! other one of each family is held out. The estimator's rates were fitted
//! on the fit texts only; the report shows both, so a rate that suits only
//! the fit texts shows up as a gap.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::recall::synth::Rng;
use crate::recall::{self, Family};

/// One text of the corpus.
#[derive(Debug, Clone)]
pub struct Text {
    /// Its kind (a family of tool outputs, a script), for the per-kind
    /// table.
    pub kind: &'static str,
    /// Where it comes from, for the per-source table.
    pub source: &'static str,
    /// Unique name.
    pub name: String,
    /// Whether the rates were tuned on it.
    pub fit: bool,
    /// The text.
    pub text: String,
}

/// Source of the recall corpus's tool outputs.
pub const RECALL: &str = "tool outputs (recall corpus)";
/// Source of the generated texts.
pub const GENERATED: &str = "generated (fixed seeds)";

/// Bytes of each generated text: fit, held-out.
const SIZES: [usize; 2] = [48 * 1024, 96 * 1024];

/// The whole corpus, in a fixed order: the recall cases (every other one of
/// each family is held out), then the generated kinds.
pub fn texts() -> Vec<Text> {
    let mut seen: BTreeMap<Family, usize> = BTreeMap::new();
    let mut all: Vec<Text> = recall::cases()
        .into_iter()
        .map(|c| {
            let nth = seen.entry(c.family).or_default();
            *nth += 1;
            Text {
                kind: c.family.name(),
                source: RECALL,
                name: c.name,
                fit: *nth % 2 == 1,
                text: c.text,
            }
        })
        .collect();
    let kinds: [(&'static str, Generator); 13] = [
        ("Rust source", rust),
        ("Python source", python),
        ("TypeScript source", typescript),
        ("Chinese", chinese),
        ("Japanese", japanese),
        ("Russian", russian),
        ("Arabic", arabic),
        ("emoji chat", emoji_chat),
        ("base64", base64_blobs),
        ("hex dump", hex_dump),
        ("CSV", csv),
        ("YAML", yaml),
        ("Markdown", markdown),
    ];
    for (k, (kind, generate)) in kinds.into_iter().enumerate() {
        for (half, size) in SIZES.into_iter().enumerate() {
            let mut g = Gen {
                out: String::with_capacity(size + 4096),
                rng: Rng::new(0x7E57_0000 + (k as u64) * 16 + half as u64),
                half,
            };
            while g.out.len() < size {
                generate(&mut g);
            }
            all.push(Text {
                kind,
                source: GENERATED,
                name: format!("{kind} #{}", half + 1),
                fit: half == 0,
                text: g.out,
            });
        }
    }
    all
}

type Generator = fn(&mut Gen);

/// A text under construction.
struct Gen {
    out: String,
    rng: Rng,
    /// 0 for the fit text, 1 for the held-out one: which half of every pool
    /// it draws from.
    half: usize,
}

impl Gen {
    /// One item of this text's half of `pool`.
    fn pick<'a>(&mut self, pool: &[&'a str]) -> &'a str {
        let mid = pool.len() / 2;
        let part = if self.half == 0 {
            &pool[..mid]
        } else {
            &pool[mid..]
        };
        part[self.rng.below(part.len() as u64) as usize]
    }

    /// A number in `lo..hi`.
    fn num(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.rng.below(hi - lo)
    }

    /// A snake_case identifier of one to three words.
    fn snake(&mut self) -> String {
        let n = 1 + self.rng.below(3);
        let words: Vec<&str> = (0..n).map(|_| self.pick(IDENT_WORDS)).collect();
        words.join("_")
    }

    /// A CamelCase identifier of one to three words.
    fn camel(&mut self) -> String {
        let n = 1 + self.rng.below(3);
        (0..n)
            .map(|_| capitalized(self.pick(IDENT_WORDS)))
            .collect()
    }

    /// A camelCase identifier of one to three words.
    fn lower_camel(&mut self) -> String {
        let mut s = self.pick(IDENT_WORDS).to_owned();
        for _ in 0..self.rng.below(3) {
            s.push_str(&capitalized(self.pick(IDENT_WORDS)));
        }
        s
    }

    /// One English sentence.
    fn sentence(&mut self) -> &'static str {
        self.pick(ENGLISH)
    }

    /// `n` random lowercase hex digits.
    fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b"0123456789abcdef"[self.rng.below(16) as usize]))
            .collect()
    }

    /// A time of day.
    fn clock(&mut self) -> String {
        format!(
            "{:02}:{:02}:{:02}",
            self.num(0, 24),
            self.num(0, 60),
            self.num(0, 60)
        )
    }
}

fn capitalized(word: &str) -> String {
    let mut c = word.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The draws this corpus makes, on the recall corpus's generator (the same
/// sequence as before it was shared: `next_u64` modulo `n`).
trait Draws {
    fn below(&mut self, n: u64) -> u64;
    fn percent_chance(&mut self, percent: u64) -> bool;
}

impl Draws for Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    fn percent_chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

// ---------------------------------------------------------------- code

const IDENT_WORDS: &[&str] = &[
    "buffer",
    "request",
    "config",
    "user",
    "session",
    "token",
    "cache",
    "index",
    "file",
    "path",
    "entry",
    "record",
    "limit",
    "offset",
    "count",
    "status",
    "handler",
    "client",
    "server",
    "queue",
    "event",
    "message",
    "payload",
    "result",
    "error",
    "budget",
    "line",
    "chunk",
    "stream",
    "reader",
    "writer",
    "state",
    "context",
    "options",
    "parser",
    "schema",
    "field",
    "value",
    "key",
    "item",
    "order",
    "account",
    "invoice",
    "price",
    "amount",
    "customer",
    "address",
    "region",
    "node",
    "cluster",
    "worker",
    "job",
    "task",
    "retry",
    "timeout",
    "deadline",
    "metric",
    "span",
    "trace",
    "tenant",
    "policy",
    "role",
    "permission",
    "audit",
    "snapshot",
    "version",
    "manifest",
    "artifact",
    "digest",
    "spill",
    "preview",
    "notice",
    "width",
    "height",
    "layout",
    "render",
];

const RUST_TYPES: &[&str] = &[
    "String",
    "u32",
    "Vec<u8>",
    "Option<String>",
    "HashMap<String, u64>",
    "&str",
    "usize",
    "Arc<Mutex<State>>",
    "Duration",
    "PathBuf",
    "Result<(), Error>",
    "BTreeMap<u32, Vec<String>>",
    "i64",
    "bool",
    "Box<dyn Error + Send + Sync>",
    "Cow<'a, str>",
];

fn rust(g: &mut Gen) {
    let ty = g.camel();
    let out = &mut String::new();
    match g.rng.below(5) {
        0 => {
            let _ = writeln!(out, "/// {}", g.sentence());
            let _ = writeln!(out, "/// {}", g.sentence());
            let _ = writeln!(
                out,
                "#[derive(Debug, Clone, PartialEq)]\npub struct {ty} {{"
            );
            for _ in 0..2 + g.rng.below(5) {
                let (f, t) = (g.snake(), g.pick(RUST_TYPES));
                let _ = writeln!(out, "    /// {}\n    pub {f}: {t},", g.sentence());
            }
            out.push_str("}\n\n");
        }
        1 => {
            let (f, a, b, t) = (g.snake(), g.snake(), g.snake(), g.pick(RUST_TYPES));
            let (n, m) = (g.num(1, 4096), g.num(0, 100));
            let _ = writeln!(
                out,
                "impl {ty} {{\n    pub fn {f}(&self, {a}: &{t}) -> Result<{t}, Error> {{\n        \
                 let {b} = self\n            .{a}\n            .get({a})\n            \
                 .ok_or_else(|| Error::NotFound(format!(\"{{}}: {{}}\", {a}, {n})))?;\n        \
                 if {b}.len() > {n} {{\n            return Err(Error::TooLarge {{ len: {b}.len(), max: {n} }});\n        \
                 }}\n        // {}\n        Ok({b}.iter().skip({m}).cloned().collect())\n    }}\n}}\n",
                g.sentence()
            );
        }
        2 => {
            let _ = writeln!(
                out,
                "#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum {ty} {{"
            );
            let variants: Vec<String> = (0..3 + g.rng.below(4)).map(|_| g.camel()).collect();
            for v in &variants {
                let _ = writeln!(out, "    /// {}\n    {v},", g.sentence());
            }
            let _ = writeln!(
                out,
                "}}\n\nimpl fmt::Display for {ty} {{\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{\n        match self {{"
            );
            for v in &variants {
                let name = g.snake().replace('_', "-");
                let _ = writeln!(out, "            {ty}::{v} => f.write_str(\"{name}\"),");
            }
            out.push_str("        }\n    }\n}\n\n");
        }
        3 => {
            let (f, a, b) = (g.snake(), g.snake(), g.snake());
            let (n, m) = (g.num(0, 65536), g.num(2, 64));
            let _ = writeln!(
                out,
                "#[test]\nfn {f}_{a}() {{\n    let mut {b} = {ty}::new({n});\n    \
                 {b}.push(\"{}\");\n    assert_eq!({b}.len(), {m}, \"{{{b}:?}}\");\n    \
                 assert!(matches!({b}.{a}(), Some(x) if x >= {n}));\n}}\n",
                g.sentence().to_lowercase()
            );
        }
        _ => {
            let (m1, m2, t) = (g.snake(), g.snake(), g.camel());
            let _ = writeln!(
                out,
                "use std::collections::{{BTreeMap, HashMap}};\nuse crate::{m1}::{{{t}, {ty}}};\n\
                 use super::{m2}::*;\n\nconst {}: usize = {};\nstatic {}_{}: &[u8] = b\"{}\";\n",
                g.snake().to_uppercase(),
                g.num(1, 1 << 20),
                g.snake().to_uppercase(),
                g.num(0, 9),
                g.hex(8),
            );
        }
    }
    g.out.push_str(out);
}

fn python(g: &mut Gen) {
    let ty = g.camel();
    let out = &mut String::new();
    match g.rng.below(4) {
        0 => {
            let (a, b, c) = (g.snake(), g.snake(), g.snake());
            let _ = writeln!(
                out,
                "class {ty}:\n    \"\"\"{}\n\n    {}\n    \"\"\"\n\n    \
                 def __init__(self, {a}: str, {b}: int = {}) -> None:\n        \
                 self.{a} = {a}\n        self._{b}: dict[str, list[int]] = {{}}\n        \
                 self.{c} = None\n",
                g.sentence(),
                g.sentence(),
                g.num(0, 1000)
            );
        }
        1 => {
            let (f, a, b, x) = (g.snake(), g.snake(), g.snake(), g.pick(IDENT_WORDS));
            let _ = writeln!(
                out,
                "    def {f}(self, {a}, *, {b}=None):\n        # {}\n        \
                 for i, {x} in enumerate(self.{a}):\n            \
                 if {x} is None or len({x}) > {}:\n                \
                 raise ValueError(f\"bad {x} at {{i}}: {{{x}!r}}\")\n        \
                 return [v * {} for v in self.{a} if v]\n",
                g.sentence(),
                g.num(1, 512),
                g.num(2, 10)
            );
        }
        2 => {
            let (f, a) = (g.snake(), g.snake());
            let _ = writeln!(
                out,
                "async def {f}(session: aiohttp.ClientSession, {a}: str) -> dict:\n    \
                 async with session.get(f\"{{BASE_URL}}/api/v{}/{a}/{{{a}}}\", timeout={}) as resp:\n        \
                 resp.raise_for_status()\n        data = await resp.json()\n    \
                 logger.info(\"fetched %s in %.2fs\", {a}, time.monotonic() - start)\n    \
                 return {{k: v for k, v in data.items() if k.startswith(\"{}\")}}\n",
                g.num(1, 4),
                g.num(5, 60),
                g.pick(IDENT_WORDS)
            );
        }
        _ => {
            let (f, a) = (g.snake(), g.snake());
            let _ = writeln!(
                out,
                "\n@pytest.mark.parametrize(\"{a}, expected\", [({}, True), ({}, False), (None, False)])\n\
                 def test_{f}({a}, expected):\n    assert {ty}({a}).is_valid() == expected, \"{}\"\n",
                g.num(0, 100),
                g.num(100, 1000),
                g.sentence()
            );
        }
    }
    g.out.push_str(out);
}

fn typescript(g: &mut Gen) {
    let ty = g.camel();
    let out = &mut String::new();
    match g.rng.below(4) {
        0 => {
            let _ = writeln!(out, "/** {} */\nexport interface {ty} {{", g.sentence());
            for _ in 0..2 + g.rng.below(5) {
                let f = g.lower_camel();
                let t = ["string", "number", "boolean", "string[]", "Date | null"]
                    [g.rng.below(5) as usize];
                let opt = if g.rng.percent_chance(30) { "?" } else { "" };
                let _ = writeln!(out, "  {f}{opt}: {t};");
            }
            out.push_str("}\n\n");
        }
        1 => {
            let (f, a, b) = (g.lower_camel(), g.lower_camel(), g.lower_camel());
            let _ = writeln!(
                out,
                "export async function {f}({a}: string, opts: Partial<{ty}> = {{}}): Promise<{ty}[]> {{\n  \
                 const res = await fetch(`${{API_BASE}}/v{}/{}/${{encodeURIComponent({a})}}`, {{\n    \
                 method: \"GET\",\n    headers: {{ Authorization: `Bearer ${{token}}` }},\n  }});\n  \
                 if (!res.ok) {{\n    throw new Error(`{}: ${{res.status}}`);\n  }}\n  \
                 const {b} = (await res.json()) as {ty}[];\n  \
                 return {b}.filter((x) => x.{} !== undefined).slice(0, {});\n}}\n",
                g.num(1, 4),
                g.pick(IDENT_WORDS),
                g.sentence(),
                g.lower_camel(),
                g.num(1, 200)
            );
        }
        2 => {
            let (a, b, c) = (g.lower_camel(), g.lower_camel(), g.pick(IDENT_WORDS));
            let _ = writeln!(
                out,
                "import {{ {a}, {b} }} from \"../{c}/{}\";\nimport type {{ {ty} }} from \"@acme/{}\";\n",
                g.pick(IDENT_WORDS),
                g.pick(IDENT_WORDS)
            );
        }
        _ => {
            let (a, b) = (g.lower_camel(), g.lower_camel());
            let _ = writeln!(
                out,
                "const {a} = useMemo(() => {b}.map(({{ id, ...rest }}) => ({{ id, label: rest.{} ?? \"{}\" }})), [{b}]);\n\
                 // {}\n",
                g.lower_camel(),
                g.sentence(),
                g.sentence()
            );
        }
    }
    g.out.push_str(out);
}

// ------------------------------------------------------- natural language

const ENGLISH: &[&str] = &[
    "Returns the number of bytes written, or an error if the file could not be opened.",
    "The cache is cleared when the session ends.",
    "This function is called once per request and must not block.",
    "If the budget is zero, capping is disabled.",
    "Retries the operation up to three times with exponential backoff.",
    "The caller owns the returned buffer.",
    "Lines longer than the limit are shortened in the middle.",
    "See the design document for the reasons behind this choice.",
    "Panics if the index is out of bounds.",
    "Every field is optional; missing fields keep their defaults.",
    "The parser accepts both LF and CRLF line endings.",
    "Timestamps are in UTC and formatted as RFC 3339.",
    "Deprecated since version 2.4; use the streaming API instead.",
    "A negative value means the limit is not enforced.",
    "This is safe to call from several threads at once.",
    "Values larger than 4 GiB are rejected with a clear error message.",
    "The worker pool scales down after five minutes without work.",
    "Configuration is read from the environment first, then from the file.",
    "Note that the order of the results is not guaranteed.",
    "We keep the head and the tail, because the error is usually at the end.",
    "Make sure the migration has run before starting the new version.",
    "The upload failed because the connection was reset by the peer.",
    "Each tenant gets its own namespace and quota.",
    "Checks that the signature matches the payload before trusting it.",
    "Hidden files are skipped unless the flag is set.",
    "The response is streamed, so memory use stays flat for large results.",
    "Invalid input is reported with the line and column of the first problem.",
    "Old snapshots are pruned by a background job every night.",
    "The default timeout of thirty seconds can be raised per call.",
    "Keys are compared case-insensitively, as HTTP headers are.",
    "This test reproduces the race reported in the issue tracker.",
    "Users without the admin role only see their own projects.",
    "Build artifacts are uploaded to the registry after the tests pass.",
    "Only the first matching rule applies; later rules are ignored.",
    "The index is rebuilt lazily on the first query after a write.",
    "Rounding is toward zero, which matches the behaviour of the old service.",
    "A warning is logged when the queue grows beyond ten thousand items.",
    "Credentials are never written to the log, even at debug level.",
    "Large files are split into chunks of four megabytes.",
    "The summary at the end lists every failed test with its duration.",
];

const CHINESE: &[&str] = &[
    "请求处理失败，服务器返回了错误代码。",
    "配置文件中缺少必要的字段，请检查后重试。",
    "数据库连接超时，系统将在三十秒后自动重试。",
    "用户登录成功后，会话将在两小时后过期。",
    "该函数返回写入的字节数，如果无法打开文件则返回错误。",
    "构建完成，共有十二个测试通过，两个测试失败。",
    "缓存将在会话结束时被清除。",
    "请确保在启动新版本之前已经运行了数据库迁移。",
    "日志文件过大，已自动截断并保存到临时目录。",
    "此接口已被弃用，请使用新的流式接口代替。",
    "上传失败，因为连接被对方重置。",
    "每个租户拥有独立的命名空间和资源配额。",
    "输入无效，请查看第一个问题所在的行号和列号。",
    "旧的快照会在每天晚上由后台任务清理。",
    "默认超时时间为三十秒，可以针对每次调用单独调整。",
    "没有管理员权限的用户只能看到自己的项目。",
    "测试通过后，构建产物会被上传到镜像仓库。",
    "当队列中的任务超过一万个时，系统会记录一条警告。",
    "凭据永远不会被写入日志，即使在调试级别也不会。",
    "大文件会被拆分为每块四兆字节的分片。",
    "内存使用率持续升高，可能存在内存泄漏。",
    "磁盘空间不足，无法保存完整的输出结果。",
    "证书已过期，请联系管理员更新证书。",
    "模型推理服务响应缓慢，平均延迟超过两秒。",
];

const JAPANESE: &[&str] = &[
    "リクエストの処理に失敗しました。サーバーがエラーコードを返しました。",
    "設定ファイルに必須の項目がありません。確認してから再試行してください。",
    "データベースへの接続がタイムアウトしました。三十秒後に自動で再試行します。",
    "ログインに成功すると、セッションは二時間後に期限切れになります。",
    "この関数は書き込んだバイト数を返します。ファイルを開けない場合はエラーを返します。",
    "ビルドが完了しました。十二件のテストが成功し、二件が失敗しました。",
    "キャッシュはセッションの終了時に削除されます。",
    "新しいバージョンを起動する前に、マイグレーションを実行してください。",
    "ログファイルが大きすぎるため、自動的に切り詰めて一時ディレクトリに保存しました。",
    "このAPIは非推奨です。代わりに新しいストリーミングAPIを使用してください。",
    "接続が相手側からリセットされたため、アップロードに失敗しました。",
    "各テナントには専用の名前空間とクォータがあります。",
    "入力が無効です。最初の問題がある行と列を確認してください。",
    "古いスナップショットは毎晩バックグラウンドのジョブで削除されます。",
    "既定のタイムアウトは三十秒で、呼び出しごとに変更できます。",
    "管理者権限のないユーザーは自分のプロジェクトだけを表示できます。",
    "テストが通ると、ビルド成果物がレジストリにアップロードされます。",
    "キューのタスクが一万件を超えると警告が記録されます。",
    "認証情報はデバッグレベルでもログに書き込まれません。",
    "大きなファイルは四メガバイトごとのチャンクに分割されます。",
    "メモリ使用量が増え続けています。メモリリークの可能性があります。",
    "ディスクの空き容量が不足しているため、出力全体を保存できませんでした。",
    "証明書の有効期限が切れています。管理者に更新を依頼してください。",
    "推論サービスの応答が遅く、平均レイテンシが二秒を超えています。",
];

const RUSSIAN: &[&str] = &[
    "Не удалось обработать запрос: сервер вернул код ошибки.",
    "В файле конфигурации отсутствует обязательное поле, проверьте его и повторите попытку.",
    "Истекло время ожидания подключения к базе данных, повтор через тридцать секунд.",
    "После успешного входа сессия истекает через два часа.",
    "Функция возвращает число записанных байтов или ошибку, если файл не удалось открыть.",
    "Сборка завершена: двенадцать тестов прошли, два упали.",
    "Кэш очищается при завершении сессии.",
    "Перед запуском новой версии убедитесь, что миграция базы данных выполнена.",
    "Файл журнала слишком большой, он был обрезан и сохранён во временный каталог.",
    "Этот интерфейс устарел, используйте вместо него новый потоковый интерфейс.",
    "Загрузка не удалась, потому что соединение было сброшено удалённой стороной.",
    "У каждого арендатора есть собственное пространство имён и квота.",
    "Некорректные входные данные: смотрите строку и столбец первой ошибки.",
    "Старые снимки удаляются фоновой задачей каждую ночь.",
    "Тайм-аут по умолчанию составляет тридцать секунд и может быть увеличен для каждого вызова.",
    "Пользователи без роли администратора видят только свои проекты.",
    "После прохождения тестов артефакты сборки загружаются в реестр.",
    "Когда очередь превышает десять тысяч задач, в журнал пишется предупреждение.",
    "Учётные данные никогда не попадают в журнал, даже на уровне отладки.",
    "Большие файлы разбиваются на части по четыре мегабайта.",
    "Потребление памяти продолжает расти, возможна утечка памяти.",
    "Недостаточно места на диске, полный вывод сохранить не удалось.",
    "Срок действия сертификата истёк, обратитесь к администратору.",
    "Сервис вывода модели отвечает медленно, средняя задержка превышает две секунды.",
];

const ARABIC: &[&str] = &[
    "فشلت معالجة الطلب، وأعاد الخادم رمز خطأ.",
    "ملف الإعدادات ينقصه حقل مطلوب، يرجى التحقق منه ثم إعادة المحاولة.",
    "انتهت مهلة الاتصال بقاعدة البيانات، وستتم إعادة المحاولة بعد ثلاثين ثانية.",
    "بعد تسجيل الدخول بنجاح تنتهي الجلسة بعد ساعتين.",
    "تعيد الدالة عدد البايتات المكتوبة، أو خطأ إذا تعذر فتح الملف.",
    "اكتمل البناء: نجح اثنا عشر اختبارا وفشل اختباران.",
    "يتم مسح ذاكرة التخزين المؤقت عند انتهاء الجلسة.",
    "تأكد من تشغيل ترحيل قاعدة البيانات قبل تشغيل الإصدار الجديد.",
    "ملف السجل كبير جدا، لذلك تم اقتطاعه وحفظه في مجلد مؤقت.",
    "هذه الواجهة قديمة، استخدم واجهة البث الجديدة بدلا منها.",
    "فشل الرفع لأن الطرف الآخر أعاد ضبط الاتصال.",
    "لكل مستأجر مساحة أسماء وحصة موارد خاصة به.",
    "المدخلات غير صالحة، راجع رقم السطر والعمود لأول مشكلة.",
    "تحذف مهمة في الخلفية اللقطات القديمة كل ليلة.",
    "المهلة الافتراضية ثلاثون ثانية ويمكن زيادتها لكل استدعاء.",
    "المستخدمون الذين ليس لديهم دور المسؤول يرون مشاريعهم فقط.",
    "بعد نجاح الاختبارات تُرفع مخرجات البناء إلى السجل.",
    "عندما تتجاوز قائمة الانتظار عشرة آلاف مهمة يُسجَّل تحذير.",
    "لا تُكتب بيانات الاعتماد في السجل أبدا، حتى في مستوى التصحيح.",
    "تُقسم الملفات الكبيرة إلى أجزاء حجم كل منها أربعة ميغابايت.",
    "استهلاك الذاكرة في ازدياد مستمر، وقد يكون هناك تسرب في الذاكرة.",
    "المساحة المتاحة على القرص غير كافية لحفظ المخرجات كاملة.",
    "انتهت صلاحية الشهادة، يرجى التواصل مع المسؤول لتجديدها.",
    "خدمة الاستدلال بطيئة، ومتوسط زمن الاستجابة يتجاوز ثانيتين.",
];

/// Prose and log lines in one language: paragraphs of its sentences, and
/// timestamped log lines whose messages are its sentences.
fn prose(g: &mut Gen, pool: &[&str], sep: &str, levels: [&str; 3]) {
    if g.rng.percent_chance(50) {
        let n = 2 + g.rng.below(5);
        for i in 0..n {
            if i > 0 {
                g.out.push_str(sep);
            }
            let s = g.pick(pool);
            g.out.push_str(s);
        }
        g.out.push_str("\n\n");
    } else {
        for _ in 0..3 + g.rng.below(8) {
            let level = levels[g.rng.below(3) as usize];
            let (day, clock, ms) = (g.num(1, 29), g.clock(), g.num(0, 1000));
            let worker = g.num(1, 17);
            let s = g.pick(pool);
            let _ = writeln!(
                g.out,
                "2026-03-{day:02} {clock}.{ms:03} [{level}] worker-{worker}: {s}"
            );
        }
    }
}

fn chinese(g: &mut Gen) {
    prose(g, CHINESE, "", ["信息", "警告", "错误"]);
}

fn japanese(g: &mut Gen) {
    prose(g, JAPANESE, "", ["情報", "警告", "エラー"]);
}

fn russian(g: &mut Gen) {
    prose(g, RUSSIAN, " ", ["ИНФО", "ПРЕДУПРЕЖДЕНИЕ", "ОШИБКА"]);
}

fn arabic(g: &mut Gen) {
    prose(g, ARABIC, " ", ["معلومات", "تحذير", "خطأ"]);
}

const EMOJI: &[&str] = &[
    "🚀",
    "🎉",
    "👍",
    "🔥",
    "✅",
    "❌",
    "⚠️",
    "🐛",
    "👀",
    "🙏",
    "😂",
    "❤️",
    "👩‍💻",
    "🧑🏽‍🚀",
    "👍🏻",
    "🇩🇪",
    "🇯🇵",
    "💯",
    "🤔",
    "😅",
    "🥳",
    "📦",
    "🛠️",
    "☕",
    "🍕",
    "👨‍👩‍👧‍👦",
    "🏳️‍🌈",
    "1️⃣",
    "😭",
    "🤖",
    "💥",
    "✨",
];

const CHAT_NAMES: &[&str] = &[
    "alice", "bob", "carol", "dmitri", "erin", "farah", "gustavo", "hana", "ivan", "jun",
];

const CHAT: &[&str] = &[
    "deploy is done",
    "who broke the build?",
    "lgtm, ship it",
    "tests are green again",
    "can someone review my PR",
    "coffee break",
    "the staging db is down again",
    "merged, thanks!",
    "happy friday everyone",
    "I'll look into it after lunch",
    "rollback finished",
    "new release is out",
    "that was a nasty bug",
    "standup in 5 min",
    "on it",
    "great work team",
];

fn emoji_chat(g: &mut Gen) {
    let (clock, name) = (g.clock(), g.pick(CHAT_NAMES));
    let _ = write!(g.out, "[{clock}] {name}: ");
    for i in 0..1 + g.rng.below(3) {
        if i > 0 || g.rng.percent_chance(50) {
            let s = g.pick(CHAT);
            g.out.push_str(s);
            g.out.push(' ');
        }
        for _ in 0..1 + g.rng.below(4) {
            let e = g.pick(EMOJI);
            g.out.push_str(e);
        }
        g.out.push(' ');
    }
    g.out.push('\n');
}

// ------------------------------------------------------------ ids, data

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 4 / 3 + 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(BASE64[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Random bytes, with some runs of zeros and of ASCII as in real files.
fn blob(g: &mut Gen, n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        match g.rng.below(10) {
            0 => v.extend(std::iter::repeat_n(0, g.num(1, 16) as usize)),
            1 => v.extend_from_slice(g.sentence().as_bytes()),
            _ => v.push(g.rng.below(256) as u8),
        }
    }
    v.truncate(n);
    v
}

fn base64_blobs(g: &mut Gen) {
    let mut out = String::new();
    let size = g.num(200, 3000) as usize;
    let data = blob(g, size);
    let encoded = base64(&data);
    match g.rng.below(3) {
        0 => {
            out.push_str("-----BEGIN CERTIFICATE-----\n");
            for line in encoded.as_bytes().chunks(64) {
                out.push_str(std::str::from_utf8(line).unwrap_or_default());
                out.push('\n');
            }
            out.push_str("-----END CERTIFICATE-----\n");
        }
        1 => {
            let name = g.snake();
            let _ = writeln!(
                out,
                "{{\"name\": \"{name}.bin\", \"encoding\": \"base64\", \"size\": {size}, \"content\": \"{encoded}\"}}"
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "<img alt=\"{}\" src=\"data:image/png;base64,{encoded}\">",
                g.pick(IDENT_WORDS)
            );
        }
    }
    g.out.push_str(&out);
}

fn hex_dump(g: &mut Gen) {
    let mut out = String::new();
    match g.rng.below(3) {
        0 => {
            // xxd
            let base = g.num(0, 1 << 20) * 16;
            let rows = g.num(4, 32) as usize;
            let data = blob(g, 16 * rows);
            for (i, row) in data.chunks(16).enumerate() {
                let _ = write!(out, "{:08x}:", base + i as u64 * 16);
                for pair in row.chunks(2) {
                    out.push(' ');
                    for b in pair {
                        let _ = write!(out, "{b:02x}");
                    }
                }
                out.push_str("  ");
                for &b in row {
                    out.push(if (0x20..0x7f).contains(&b) {
                        char::from(b)
                    } else {
                        '.'
                    });
                }
                out.push('\n');
            }
        }
        1 => {
            // sha256sum
            for _ in 0..g.num(4, 20) {
                let digest = g.hex(64);
                let (dir, file) = (g.pick(IDENT_WORDS), g.snake());
                let _ = writeln!(out, "{digest}  ./{dir}/{file}.tar.gz");
            }
        }
        _ => {
            // git log --oneline and uuids
            for _ in 0..g.num(4, 20) {
                let (hash, id) = (g.hex(12), g.hex(32));
                let uuid = format!(
                    "{}-{}-{}-{}-{}",
                    &id[..8],
                    &id[8..12],
                    &id[12..16],
                    &id[16..20],
                    &id[20..]
                );
                let msg = g.sentence();
                let _ = writeln!(out, "{hash} {msg} (request {uuid})");
            }
        }
    }
    g.out.push_str(&out);
}

const COUNTRIES: &[&str] = &["DE", "US", "JP", "BR", "IN", "FR", "NG", "CA", "KR", "MX"];
const STATUSES: &[&str] = &["paid", "pending", "refunded", "failed", "disputed", "void"];

fn csv(g: &mut Gen) {
    let mut out = String::new();
    if g.out.is_empty() {
        out.push_str("id,created_at,email,country,amount,currency,status,items,note\n");
    }
    for _ in 0..20 {
        let id = g.num(100_000, 999_999);
        let (m, d, clock) = (g.num(1, 13), g.num(1, 29), g.clock());
        let (user, host) = (g.pick(IDENT_WORDS), g.pick(IDENT_WORDS));
        let (country, status) = (g.pick(COUNTRIES), g.pick(STATUSES));
        let amount = format!("{}.{:02}", g.num(0, 5000), g.num(0, 100));
        let items = g.num(1, 12);
        let note = if g.rng.percent_chance(30) {
            format!("\"{}\"", g.sentence())
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{id},2026-{m:02}-{d:02}T{clock}Z,{user}.{}@{host}.example.com,{country},{amount},EUR,{status},{items},{note}",
            g.num(1, 999)
        );
    }
    g.out.push_str(&out);
}

fn yaml(g: &mut Gen) {
    let mut out = String::new();
    let (app, team) = (g.snake().replace('_', "-"), g.pick(IDENT_WORDS));
    let (replicas, port, cpu, mem) = (
        g.num(1, 8),
        g.num(1024, 9999),
        g.num(50, 2000),
        g.num(64, 4096),
    );
    let (tag, hash) = (g.hex(7), g.hex(10));
    let _ = writeln!(
        out,
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {app}\n  namespace: {team}\n  \
         labels:\n    app.kubernetes.io/name: {app}\n    app.kubernetes.io/part-of: {team}\n  \
         annotations:\n    deployment.kubernetes.io/revision: \"{}\"\n    description: \"{}\"\n\
         spec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {app}\n  \
         template:\n    metadata:\n      labels:\n        app: {app}\n        pod-template-hash: {hash}\n    \
         spec:\n      containers:\n        - name: {app}\n          \
         image: registry.example.com/{team}/{app}:{tag}\n          ports:\n            \
         - containerPort: {port}\n              protocol: TCP\n          env:\n            \
         - name: LOG_LEVEL\n              value: info\n            - name: {}_URL\n              \
         value: \"http://{}.{team}.svc.cluster.local:{port}\"\n          resources:\n            \
         requests:\n              cpu: {cpu}m\n              memory: {mem}Mi\n            \
         limits:\n              memory: {}Mi\n",
        g.num(1, 300),
        g.sentence(),
        g.pick(IDENT_WORDS).to_uppercase(),
        g.pick(IDENT_WORDS),
        mem * 2
    );
    g.out.push_str(&out);
}

fn markdown(g: &mut Gen) {
    let mut out = String::new();
    match g.rng.below(5) {
        0 => {
            let _ = writeln!(
                out,
                "## {}\n\n{} {} {}\n",
                capitalized(&g.snake().replace('_', " ")),
                g.sentence(),
                g.sentence(),
                g.sentence()
            );
        }
        1 => {
            for _ in 0..3 + g.rng.below(4) {
                let (a, b) = (g.snake(), g.sentence());
                let _ = writeln!(out, "- **`{a}`**: {b}");
            }
            out.push('\n');
        }
        2 => {
            let (cmd, flag) = (g.pick(IDENT_WORDS), g.snake().replace('_', "-"));
            let _ = writeln!(
                out,
                "```sh\ncargo run --release -p {cmd} -- --{flag} {}\nexport {}_DIR=$PWD/target/{cmd}\n```\n",
                g.num(1, 1000),
                g.pick(IDENT_WORDS).to_uppercase()
            );
        }
        3 => {
            out.push_str("| name | default | description |\n|---|---:|---|\n");
            for _ in 0..3 + g.rng.below(5) {
                let (a, n, s) = (g.snake(), g.num(0, 10000), g.sentence());
                let _ = writeln!(out, "| `{a}` | {n} | {s} |");
            }
            out.push('\n');
        }
        _ => {
            let (a, b, c) = (g.sentence(), g.pick(IDENT_WORDS), g.pick(IDENT_WORDS));
            let _ = writeln!(
                out,
                "> **Note**\n> {a} See [the {b} guide](https://docs.example.com/{b}/{c}#{}) for details.\n",
                g.snake().replace('_', "-")
            );
        }
    }
    g.out.push_str(&out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_is_deterministic_and_split() {
        let (a, b) = (texts(), texts());
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.text, y.text, "{}", x.name);
        }
        let kinds: std::collections::BTreeSet<&str> = a.iter().map(|t| t.kind).collect();
        for kind in kinds {
            let fit = a.iter().filter(|t| t.kind == kind && t.fit).count();
            let held = a.iter().filter(|t| t.kind == kind && !t.fit).count();
            assert!(fit >= 1 && held >= 1, "{kind}: {fit} fit, {held} held out");
        }
    }

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
