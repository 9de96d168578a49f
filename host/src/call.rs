//! Building the `call` record a cap takes.

use crate::Call;

impl Call {
    /// A call known only by its id: no tool name, no exit code, no error.
    pub fn new(id: impl Into<String>) -> Self {
        Call {
            id: id.into(),
            tool: None,
            exit_code: None,
            is_error: false,
            search: None,
        }
    }
}

impl From<&str> for Call {
    fn from(id: &str) -> Self {
        Call::new(id)
    }
}

impl From<String> for Call {
    fn from(id: String) -> Self {
        Call::new(id)
    }
}

impl From<&String> for Call {
    fn from(id: &String) -> Self {
        Call::new(id.as_str())
    }
}
