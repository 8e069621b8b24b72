//! The write rules per mutability, and the ledger record that lets the store enforce
//! them across restarts.
//!
//! For every session file the store keeps a small [`LedgerRecord`] (in
//! `sessions/<id>/.ledger/`): how often the file was written and the length and SHA-256
//! of the content the store last left in it. Write-once and write-few limits are
//! checked against the count; before every append, the file's current bytes are
//! checked against length and hash, so content changed behind the store's back is
//! detected instead of silently extended.

use serde::{Deserialize, Serialize};

use crate::layout::Mutability;
use crate::manifest::sha256_hex;

/// What a caller wants to do to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    /// Replace the whole content.
    Replace,
    /// Add to the end.
    Append,
}

/// A write the file's mutability forbids.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleViolation {
    #[error("templates are immutable")]
    Immutable,
    #[error("write-once file was already written")]
    AlreadyWritten,
    #[error("write-few file was already written {max} times (its limit)")]
    WriteLimit { max: u32 },
    #[error("append-only file can only be appended to")]
    AppendOnly,
    #[error("only append-only files can be appended to")]
    NotAppendOnly,
}

/// What the store knows about one session file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerRecord {
    /// Writes made through the store (replacements or appends); copying the blueprint
    /// at session start is not a write.
    pub writes: u32,
    /// Length in bytes of the content the store last left in the file.
    pub len: u64,
    /// SHA-256 (lower-case hex) of that content.
    pub sha256: String,
    /// An append under way: the record the file has once its text is in. Written before
    /// the text, so that a store stopped between the text and its record (a killed
    /// recorder) finds the file as this says, and goes on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Box<LedgerRecord>>,
}

impl LedgerRecord {
    /// The record for `content` after `writes` writes.
    pub fn of(content: &[u8], writes: u32) -> Self {
        Self {
            writes,
            len: content.len() as u64,
            sha256: sha256_hex(content),
            pending: None,
        }
    }

    /// Whether `current` is exactly the content this record describes.
    pub fn matches(&self, current: &[u8]) -> bool {
        self.len == current.len() as u64 && self.sha256 == sha256_hex(current)
    }
}

/// Whether a write of `kind` is allowed on a file of mutability `m` that has been
/// written `writes_so_far` times.
pub fn check_write(
    m: Mutability,
    kind: WriteKind,
    writes_so_far: u32,
) -> Result<(), RuleViolation> {
    match (m, kind) {
        (Mutability::Immutable, _) => Err(RuleViolation::Immutable),
        (Mutability::AppendOnly, WriteKind::Append) => Ok(()),
        (Mutability::AppendOnly, WriteKind::Replace) => Err(RuleViolation::AppendOnly),
        (_, WriteKind::Append) => Err(RuleViolation::NotAppendOnly),
        (Mutability::WriteOnce, WriteKind::Replace) => {
            if writes_so_far == 0 {
                Ok(())
            } else {
                Err(RuleViolation::AlreadyWritten)
            }
        }
        (Mutability::WriteFew { max_writes }, WriteKind::Replace) => {
            if writes_so_far < max_writes {
                Ok(())
            } else {
                Err(RuleViolation::WriteLimit { max: max_writes })
            }
        }
        (Mutability::Overwrite, WriteKind::Replace) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Mutability::*;
    use WriteKind::*;

    #[test]
    fn write_once() {
        assert_eq!(check_write(WriteOnce, Replace, 0), Ok(()));
        assert_eq!(
            check_write(WriteOnce, Replace, 1),
            Err(RuleViolation::AlreadyWritten)
        );
        assert_eq!(
            check_write(WriteOnce, Append, 0),
            Err(RuleViolation::NotAppendOnly)
        );
    }

    #[test]
    fn write_few() {
        let m = WriteFew { max_writes: 3 };
        for n in 0..3 {
            assert_eq!(check_write(m, Replace, n), Ok(()));
        }
        assert_eq!(
            check_write(m, Replace, 3),
            Err(RuleViolation::WriteLimit { max: 3 })
        );
    }

    #[test]
    fn append_only_and_overwrite() {
        assert_eq!(check_write(AppendOnly, Append, 1000), Ok(()));
        assert_eq!(
            check_write(AppendOnly, Replace, 0),
            Err(RuleViolation::AppendOnly)
        );
        assert_eq!(check_write(Overwrite, Replace, u32::MAX), Ok(()));
        assert_eq!(
            check_write(Overwrite, Append, 0),
            Err(RuleViolation::NotAppendOnly)
        );
        assert_eq!(
            check_write(Immutable, Replace, 0),
            Err(RuleViolation::Immutable)
        );
        assert_eq!(
            check_write(Immutable, Append, 0),
            Err(RuleViolation::Immutable)
        );
    }

    #[test]
    fn ledger_record_detects_changes() {
        let r = LedgerRecord::of(b"# Transcript\nhello\n", 1);
        assert!(r.matches(b"# Transcript\nhello\n"));
        assert!(!r.matches(b"# Transcript\nhellO\n"));
        assert!(!r.matches(b"# Transcript\nhello\n\n"));
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<LedgerRecord>(&json).unwrap(), r);
    }
}
