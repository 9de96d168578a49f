//! Just enough of the shell's word splitting to read a simple `sh -c`
//! script: its commands (split at `|`, `;`, `&`, `&&`, `||`, line breaks)
//! as words, redirections left out. A word with a parameter expansion
//! (`$PAT`) is unknown (`None`); a script with command substitution,
//! subshells or here-documents is not followed at all.

/// One command's words; `None` for a word whose value depends on the
/// environment.
pub type Words = Vec<Option<String>>;

/// The commands of `script`, or `None` when it is not simple enough.
pub fn commands(script: &str) -> Option<Vec<Words>> {
    let mut commands: Vec<Words> = vec![Vec::new()];
    let mut chars = script.chars().peekable();
    let mut word = Word::default();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                word.end(&mut commands)?;
            }
            '\n' | ';' | '|' | '&' => {
                word.end(&mut commands)?;
                if word.redirect_target {
                    return None;
                }
                if chars.peek() == Some(&c) {
                    chars.next();
                }
                if commands.last().is_some_and(|c| !c.is_empty()) {
                    commands.push(Vec::new());
                }
            }
            '#' if !word.started => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '<' | '>' => {
                // `2>` `>>` `>|` `>&2` `<file`: the fd before it is not a word.
                if word.started
                    && !word.text.is_empty()
                    && word.text.chars().all(|c| c.is_ascii_digit())
                {
                    word = Word::default();
                }
                word.end(&mut commands)?;
                if c == '<' && chars.peek() == Some(&'<') {
                    return None;
                }
                while chars.peek().is_some_and(|&c| c == '>' || c == '|') {
                    chars.next();
                }
                if chars.peek() == Some(&'&') {
                    chars.next();
                    while chars
                        .peek()
                        .is_some_and(|&c| c.is_ascii_digit() || c == '-')
                    {
                        chars.next();
                    }
                    continue;
                }
                word.redirect_target = true;
            }
            '(' | ')' | '`' => return None,
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(c) => {
                    word.text.push(c);
                    word.started = true;
                }
                None => return None,
            },
            '\'' => {
                word.started = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.text.push(c),
                    }
                }
            }
            '"' => {
                word.started = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '`' => return None,
                        '$' => {
                            if chars.peek() == Some(&'(') {
                                return None;
                            }
                            word.unknown = true;
                        }
                        '\\' => match chars.next()? {
                            c @ ('$' | '`' | '"' | '\\') => word.text.push(c),
                            '\n' => {}
                            c => {
                                word.text.push('\\');
                                word.text.push(c);
                            }
                        },
                        c => word.text.push(c),
                    }
                }
            }
            '$' => {
                if chars.peek() == Some(&'(') {
                    return None;
                }
                word.unknown = true;
                word.started = true;
            }
            c => {
                word.text.push(c);
                word.started = true;
            }
        }
    }
    word.end(&mut commands)?;
    if word.redirect_target {
        return None;
    }
    commands.retain(|c| !c.is_empty());
    Some(commands)
}

/// The word being read.
#[derive(Default)]
struct Word {
    text: String,
    /// It holds an expansion.
    unknown: bool,
    /// Any of it was read (`''` is a word).
    started: bool,
    /// It is the target of a redirection, not an argument.
    redirect_target: bool,
}

impl Word {
    /// Ends the word, adding it to the last command unless it is a
    /// redirection's target (which stays pending until a word comes).
    fn end(&mut self, commands: &mut [Words]) -> Option<()> {
        if !self.started {
            return Some(());
        }
        if !self.redirect_target {
            let text = std::mem::take(&mut self.text);
            commands.last_mut()?.push((!self.unknown).then_some(text));
        }
        *self = Self::default();
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(script: &str) -> Vec<Vec<String>> {
        commands(script)
            .unwrap()
            .into_iter()
            .map(|c| c.into_iter().map(|w| w.unwrap_or("?".into())).collect())
            .collect()
    }

    #[test]
    fn words_quotes_and_commands() {
        assert_eq!(
            known(r#"grep -rn 'foo bar' "src/" | head -20; echo done"#),
            [
                vec!["grep", "-rn", "foo bar", "src/"],
                vec!["head", "-20"],
                vec!["echo", "done"]
            ]
        );
        assert_eq!(
            known(r#"rg "a\"b\$c" x\ y ''"#),
            [vec!["rg", "a\"b$c", "x y", ""]]
        );
        assert_eq!(
            known("cd dir && grep x . || true"),
            [vec!["cd", "dir"], vec!["grep", "x", "."], vec!["true"]]
        );
    }

    #[test]
    fn redirections_are_not_words() {
        assert_eq!(
            known("grep -n needle file 2>/dev/null >out.txt 2>&1 < in"),
            [vec!["grep", "-n", "needle", "file"]]
        );
    }

    #[test]
    fn expansions_are_unknown_and_substitutions_not_followed() {
        assert_eq!(known(r#"grep "$PAT" file"#), [vec!["grep", "?", "file"]]);
        assert_eq!(known("grep ${PAT} file"), [vec!["grep", "?", "file"]]);
        assert_eq!(commands("grep $(cat pat) file"), None);
        assert_eq!(commands("grep `cat pat` file"), None);
        assert_eq!(commands("(cd x; grep y)"), None);
        assert_eq!(commands("grep 'unterminated"), None);
        assert_eq!(commands("cat <<EOF\nx\nEOF"), None);
    }
}
