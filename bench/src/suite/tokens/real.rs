//! Real text in every script: files that packages on PyPI and npm ship,
//! pinned in bench/corpus/requirements.txt and bench/corpus/package.json and
//! installed by `make bench-corpus` into bench/corpus/py and
//! bench/corpus/node_modules (not committed; about 70 MB):
//!
//! - gettext catalogs (.po): Django 5.1.4 (every catalog of a language in one
//!   text) and Sphinx 8.1.3;
//! - translated compiler messages (JSON): TypeScript 5.7.2's
//!   diagnosticMessages.generated.json;
//! - locale files (JSON): CLDR 45's language, script, territory and variant
//!   names (cldr-localenames-modern), and exemplar characters
//!   (cldr-misc-modern, a Unicode data table);
//! - emoji tables: emoji 2.14.0's emoji.json and its localized names, and
//!   unicode-emoji-json 0.9.0;
//! - character tables: OpenCC's conversion tables of Chinese characters
//!   (opencc-python-reimplemented 0.1.7), runs of rare ideographs.
//!
//! The split is by file, never within one: a language's Django catalogs,
//! emoji.json and OpenCC's simplified-to-traditional table are the *fit*
//! texts, on which the rates were tuned; every other file is held out, and
//! the targets are measured on those.

use std::path::{Path, PathBuf};

use super::corpus::Text;

/// Where `make bench-corpus` installs the packages, unless
/// `TOOLCAP_TOKEN_CORPUS` names another directory with the same layout.
pub fn root() -> PathBuf {
    std::env::var_os("TOOLCAP_TOKEN_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"),
        PathBuf::from,
    )
}

/// A language of the corpus: its kind's name, and its locale in each
/// package that has it.
struct Language {
    kind: &'static str,
    django: &'static str,
    sphinx: Option<&'static str>,
    typescript: Option<&'static str>,
    cldr: &'static str,
}

const fn lang(
    kind: &'static str,
    django: &'static str,
    sphinx: Option<&'static str>,
    typescript: Option<&'static str>,
    cldr: &'static str,
) -> Language {
    Language {
        kind,
        django,
        sphinx,
        typescript,
        cldr,
    }
}

const LANGUAGES: &[Language] = &[
    lang("Greek", "el", Some("el"), None, "el"),
    lang(
        "Chinese (Traditional)",
        "zh_Hant",
        Some("zh_TW"),
        Some("zh-tw"),
        "zh-Hant",
    ),
    lang(
        "Chinese (Simplified)",
        "zh_Hans",
        Some("zh_CN"),
        Some("zh-cn"),
        "zh",
    ),
    lang("Japanese", "ja", Some("ja"), Some("ja"), "ja"),
    lang("Korean", "ko", Some("ko"), Some("ko"), "ko"),
    lang("Polish", "pl", Some("pl"), Some("pl"), "pl"),
    lang("Czech", "cs", Some("cs"), Some("cs"), "cs"),
    lang("Hebrew", "he", Some("he"), None, "he"),
    lang("Arabic", "ar", Some("ar"), None, "ar"),
    lang("Russian", "ru", Some("ru"), Some("ru"), "ru"),
    lang("Hindi", "hi", Some("hi"), None, "hi"),
    lang("Thai", "th", None, None, "th"),
    lang("Vietnamese", "vi", Some("vi"), None, "vi"),
    lang("Turkish", "tr", Some("tr"), Some("tr"), "tr"),
];

/// TypeScript's messages in Latin-1 languages, held out: accented Latin
/// must not regress while Latin Extended is tuned.
const WESTERN: &[&str] = &["de", "es", "fr", "it", "pt-br"];
/// Their kind.
pub const WESTERN_KIND: &str = "German, Spanish, French, Italian, Portuguese";

/// Localized emoji names of the emoji package, held out.
const EMOJI_LANGUAGES: &[&str] = &["ja", "zh", "ko", "ru", "ar", "tr"];

/// Source labels, for the per-source table.
pub const GETTEXT: &str = "gettext catalogs (.po)";
pub const COMPILER: &str = "compiler messages (JSON)";
pub const LOCALE: &str = "CLDR locale names (JSON)";
pub const EXEMPLARS: &str = "CLDR exemplar characters (JSON)";
pub const EMOJI: &str = "emoji tables (JSON)";
pub const CHARACTERS: &str = "character tables (text)";

/// Kind of the texts that are tables of characters rather than prose.
pub const DATA_TABLES: &str = "Unicode data tables";
/// Kind of the emoji tables.
pub const EMOJI_TABLES: &str = "emoji tables";

/// Every real text, or why there are none: the corpus is not installed.
pub fn texts() -> Result<Vec<Text>, String> {
    let root = root();
    let py = root.join("py");
    let npm = root.join("node_modules");
    for (dir, what) in [(&py, "PyPI"), (&npm, "npm")] {
        if !dir.join(".installed").is_file() {
            return Err(format!(
                "the token corpus's {what} packages are not installed in {}: run `make \
                 bench-corpus` (pinned packages from PyPI and npm, about 70 MB, needs the \
                 network once), or point TOOLCAP_TOKEN_CORPUS at a copy",
                dir.display()
            ));
        }
    }
    let mut out = Vec::new();
    let mut add = |kind: &'static str, source: &'static str, fit: bool, name: String, text| {
        out.push(Text {
            kind,
            source,
            name,
            fit,
            text,
        });
    };
    for &Language {
        kind,
        django,
        sphinx,
        typescript,
        cldr,
    } in LANGUAGES
    {
        let catalogs = django_catalogs(&py.join("django"), django)?;
        add(kind, GETTEXT, true, format!("Django {django}"), catalogs);
        if let Some(l) = sphinx {
            let path = py.join(format!("sphinx/locale/{l}/LC_MESSAGES/sphinx.po"));
            add(kind, GETTEXT, false, format!("Sphinx {l}"), read(&path)?);
        }
        if let Some(l) = typescript {
            let path = npm.join(format!(
                "typescript/lib/{l}/diagnosticMessages.generated.json"
            ));
            add(
                kind,
                COMPILER,
                false,
                format!("TypeScript {l}"),
                read(&path)?,
            );
        }
        let names = ["languages", "scripts", "territories", "variants"]
            .iter()
            .map(|f| read(&npm.join(format!("cldr-localenames-modern/main/{cldr}/{f}.json"))))
            .collect::<Result<Vec<_>, _>>()?;
        add(
            kind,
            LOCALE,
            false,
            format!("CLDR names {cldr}"),
            names.concat(),
        );
        let path = npm.join(format!("cldr-misc-modern/main/{cldr}/characters.json"));
        add(
            DATA_TABLES,
            EXEMPLARS,
            false,
            format!("CLDR characters {cldr}"),
            read(&path)?,
        );
    }
    for l in WESTERN {
        let path = npm.join(format!(
            "typescript/lib/{l}/diagnosticMessages.generated.json"
        ));
        add(
            WESTERN_KIND,
            COMPILER,
            false,
            format!("TypeScript {l}"),
            read(&path)?,
        );
    }
    let emoji = py.join("emoji/unicode_codes");
    add(
        EMOJI_TABLES,
        EMOJI,
        true,
        "emoji.json".into(),
        read(&emoji.join("emoji.json"))?,
    );
    for l in EMOJI_LANGUAGES {
        let path = emoji.join(format!("emoji_{l}.json"));
        add(
            EMOJI_TABLES,
            EMOJI,
            false,
            format!("emoji_{l}.json"),
            read(&path)?,
        );
    }
    let path = npm.join("unicode-emoji-json/data-by-emoji.json");
    add(
        EMOJI_TABLES,
        EMOJI,
        false,
        "unicode-emoji-json".into(),
        read(&path)?,
    );
    let opencc = py.join("opencc/dictionary");
    for (file, fit) in [
        ("STCharacters.txt", true),
        ("TSCharacters.txt", false),
        ("TWPhrases.txt", false),
        ("HKVariantsRevPhrases.txt", false),
        ("JPVariants.txt", false),
    ] {
        let text = read(&opencc.join(file))?;
        add(DATA_TABLES, CHARACTERS, fit, format!("OpenCC {file}"), text);
    }
    Ok(out)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: {e} (the token corpus is incomplete: run `make bench-corpus` again)",
            path.display()
        )
    })
}

/// Every gettext catalog of `locale` under Django's tree, in path order,
/// in one text.
fn django_catalogs(django: &Path, locale: &str) -> Result<String, String> {
    let mut found = Vec::new();
    let mut dirs = vec![django.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "po")
                && path
                    .parent()
                    .and_then(Path::parent)
                    .and_then(Path::file_name)
                    == Some(locale.as_ref())
            {
                found.push(path);
            }
        }
    }
    if found.is_empty() {
        return Err(format!(
            "no Django catalog for {locale} under {} (run `make bench-corpus`)",
            django.display()
        ));
    }
    found.sort();
    let texts = found
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(texts.concat())
}
