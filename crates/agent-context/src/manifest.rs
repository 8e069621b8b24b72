//! `MANIFEST.sha256`: the checksums of a frozen session.
//!
//! The format is the one `sha256sum` writes and checks: one line per file,
//! `<64 lower-case hex digits><two spaces><path>`, paths relative to the session folder
//! with `/` separators, sorted bytewise. So `cd sessions/<id> && sha256sum -c
//! MANIFEST.sha256` verifies an archive without this crate. The manifest does not list
//! itself.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// A malformed manifest line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("manifest line {line}: {reason}")]
pub struct ManifestError {
    /// 1-based line number.
    pub line: usize,
    pub reason: &'static str,
}

/// Relative path → SHA-256 hex, sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    entries: BTreeMap<String, String>,
}

/// One difference between a manifest and the files on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discrepancy {
    /// Listed, but the content's checksum differs.
    Modified { path: String },
    /// Listed, but gone.
    Missing { path: String },
    /// Present, but not listed.
    Added { path: String },
}

impl Discrepancy {
    pub fn path(&self) -> &str {
        match self {
            Discrepancy::Modified { path }
            | Discrepancy::Missing { path }
            | Discrepancy::Added { path } => path,
        }
    }
}

impl Manifest {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the checksum of `content` under `path`.
    pub fn add(&mut self, path: impl Into<String>, content: &[u8]) {
        self.entries.insert(path.into(), sha256_hex(content));
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `(path, sha256 hex)` in path order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(p, h)| (p.as_str(), h.as_str()))
    }

    pub fn get(&self, path: &str) -> Option<&str> {
        self.entries.get(path).map(String::as_str)
    }

    /// The `sha256sum` text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (path, hash) in &self.entries {
            let _ = writeln!(out, "{hash}  {path}");
        }
        out
    }

    /// Parses the `sha256sum` text (text mode `  ` or binary mode ` *` separators).
    /// Blank lines are ignored; anything else malformed is an error.
    pub fn parse(text: &str) -> Result<Self, ManifestError> {
        let mut entries = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            let err = |reason| ManifestError {
                line: i + 1,
                reason,
            };
            if line.trim().is_empty() {
                continue;
            }
            let (hash, rest) = line
                .split_at_checked(64)
                .ok_or_else(|| err("too short for a checksum"))?;
            if !hash
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            {
                return Err(err("checksum is not 64 lower-case hex digits"));
            }
            let path = rest
                .strip_prefix("  ")
                .or_else(|| rest.strip_prefix(" *"))
                .ok_or_else(|| err("expected two spaces after the checksum"))?;
            if path.is_empty() {
                return Err(err("empty path"));
            }
            if entries.insert(path.to_owned(), hash.to_owned()).is_some() {
                return Err(err("path listed twice"));
            }
        }
        Ok(Self { entries })
    }

    /// Differences from `self` (the recorded state) to `actual` (recomputed now),
    /// sorted by path.
    pub fn diff(&self, actual: &Manifest) -> Vec<Discrepancy> {
        let mut out = Vec::new();
        for (path, hash) in &self.entries {
            match actual.entries.get(path) {
                None => out.push(Discrepancy::Missing { path: path.clone() }),
                Some(h) if h != hash => out.push(Discrepancy::Modified { path: path.clone() }),
                Some(_) => {}
            }
        }
        for path in actual.entries.keys() {
            if !self.entries.contains_key(path) {
                out.push(Discrepancy::Added { path: path.clone() });
            }
        }
        out.sort_by(|a, b| a.path().cmp(b.path()));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digest() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn render_parse_round_trip_sorted() {
        let mut m = Manifest::new();
        m.add("shared/b.md", b"b");
        m.add("analyst/a.md", b"a");
        let text = m.render();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with("  analyst/a.md"));
        assert!(lines[1].ends_with("  shared/b.md"));
        assert_eq!(Manifest::parse(&text).unwrap(), m);
        let binary = text.replace("  ", " *");
        assert_eq!(Manifest::parse(&binary).unwrap(), m);
    }

    #[test]
    fn parse_errors_name_the_line() {
        let good = format!("{}  a.md\n", sha256_hex(b"a"));
        let e = Manifest::parse(&format!("{good}xyz\n")).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(Manifest::parse(&format!("{good}{good}")).is_err());
        assert!(Manifest::parse(&good.replace("  ", " ")).is_err());
        assert!(Manifest::parse(&good.to_uppercase()).is_err());
        assert!(Manifest::parse(&format!("{}  \n", sha256_hex(b"a"))).is_err());
    }

    #[test]
    fn diff_reports_every_kind() {
        let mut recorded = Manifest::new();
        recorded.add("a", b"1");
        recorded.add("b", b"2");
        recorded.add("c", b"3");
        let mut actual = Manifest::new();
        actual.add("a", b"1");
        actual.add("b", b"two");
        actual.add("d", b"4");
        assert_eq!(
            recorded.diff(&actual),
            vec![
                Discrepancy::Modified { path: "b".into() },
                Discrepancy::Missing { path: "c".into() },
                Discrepancy::Added { path: "d".into() },
            ]
        );
        assert!(recorded.diff(&recorded).is_empty());
    }
}
