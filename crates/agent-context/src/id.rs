//! Names that become path components: session ids and agent names.
//!
//! Both end up as a single folder name under the context root, so both follow one rule:
//! 1 to 64 characters out of `[A-Za-z0-9_-]`. No dot at all (so never `.` or `..`, and
//! no hidden or temporary names that the store uses for itself), no separator, no drive
//! prefix, no whitespace. A validated name can therefore never leave the folder it is
//! joined to.

use std::fmt;

/// Longest accepted session id or agent name, in characters (all ASCII).
pub const MAX_NAME_LEN: usize = 64;

/// Why a string is not a valid session id or agent name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("{kind} must not be empty")]
    Empty { kind: &'static str },
    #[error("{kind} `{value}` is longer than {MAX_NAME_LEN} characters")]
    TooLong { kind: &'static str, value: String },
    #[error("{kind} `{value}` contains `{bad}`; only A-Z, a-z, 0-9, `_` and `-` are allowed")]
    BadChar {
        kind: &'static str,
        value: String,
        bad: char,
    },
}

fn validate(kind: &'static str, value: &str) -> Result<(), IdError> {
    if value.is_empty() {
        return Err(IdError::Empty { kind });
    }
    if let Some(bad) = value
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(IdError::BadChar {
            kind,
            value: value.chars().take(MAX_NAME_LEN * 2).collect(),
            bad,
        });
    }
    if value.len() > MAX_NAME_LEN {
        return Err(IdError::TooLong {
            kind,
            value: value.to_owned(),
        });
    }
    Ok(())
}

macro_rules! name_type {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            /// Validates `value` (see the module documentation for the rule).
            pub fn new(value: impl Into<String>) -> Result<Self, IdError> {
                let value = value.into();
                validate($kind, &value)?;
                Ok(Self(value))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::str::FromStr for $name {
            type Err = IdError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::new(s)
            }
        }

        impl TryFrom<&str> for $name {
            type Error = IdError;
            fn try_from(s: &str) -> Result<Self, Self::Error> {
                Self::new(s)
            }
        }
    };
}

name_type!(
    /// The id of one session: the name of its folder under `sessions/`.
    SessionId,
    "session id"
);

name_type!(
    /// An agent's name: the name of its folder under `templates/` and in a session.
    AgentName,
    "agent name"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_plain_names() {
        for ok in [
            "a",
            "2024-06-01_board-rehearsal",
            "skeptic",
            &"x".repeat(64),
        ] {
            assert!(SessionId::new(ok).is_ok(), "{ok}");
            assert!(AgentName::new(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn rejects_escapes_and_odd_characters() {
        for bad in [
            "", ".", "..", "../x", "a/b", "a\\b", "C:", ".hidden", "a.b", "a b", "é", "a\0", "~",
            "a\n",
        ] {
            assert!(SessionId::new(bad).is_err(), "{bad:?}");
        }
        assert!(matches!(
            SessionId::new("x".repeat(65)),
            Err(IdError::TooLong { .. })
        ));
        assert!(matches!(
            AgentName::new("a/b"),
            Err(IdError::BadChar { bad: '/', .. })
        ));
    }

    #[test]
    fn error_names_the_kind() {
        let e = SessionId::new("").unwrap_err().to_string();
        assert!(e.contains("session id"), "{e}");
        let e = AgentName::new("a.b").unwrap_err().to_string();
        assert!(e.contains("agent name") && e.contains("a.b"), "{e}");
    }
}
