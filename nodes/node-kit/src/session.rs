//! The session folder shared by every node of a run.
//!
//! `SESSION_DIR` if set; otherwise `<SESSIONS_ROOT>/<session-id>` (root default
//! `sessions`), where the id is `SESSION_ID` or derived from the dataflow id, so every
//! node of one run writes into the same folder. `<SESSIONS_ROOT>/latest` points at it.
//!
//! A folder belongs to one run: the first node to open it writes the dataflow id into
//! `.dataflow`; nodes of another run refuse it, so two runs never mix in one transcript.
//! A node of the same run (a sibling, or itself restarted) opens it again.

use std::path::{Path, PathBuf};

use eyre::{Context, bail};
use session_log::{is_valid_session_id, session_id_for_dataflow};

/// Longest `SESSION_DIR` accepted, in bytes (a path longer than the system's `PATH_MAX`
/// could not be opened anyway).
pub const MAX_SESSION_DIR_BYTES: usize = 4096;

/// `SESSION_DIR` as a path, or why it is refused: a `..` component (the folder could be
/// anywhere relative to where each node runs, and `a/../../b` climbs out of what it
/// names), a NUL byte, or more than [`MAX_SESSION_DIR_BYTES`].
pub fn session_dir_path(value: &str) -> eyre::Result<PathBuf> {
    let shown = voice_protocol::shorten(value);
    if value.len() > MAX_SESSION_DIR_BYTES {
        bail!(
            "SESSION_DIR is {} bytes long; at most {MAX_SESSION_DIR_BYTES} are accepted ({shown:?})",
            value.len()
        );
    }
    if value.contains('\0') {
        bail!("SESSION_DIR {shown:?} contains a NUL byte");
    }
    let path = PathBuf::from(value);
    if path
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        bail!(
            "SESSION_DIR {shown:?} contains a `..` component; give the folder without `..` (an absolute path, or one below the working folder)"
        );
    }
    Ok(path)
}

/// `SESSION_ID` checked to be one folder name, or a clear error naming the variable.
fn checked_session_id(id: &str) -> eyre::Result<()> {
    if !is_valid_session_id(id) {
        bail!(
            "SESSION_ID {:?} ({} bytes) is not a valid folder name (1 to 128 of letters, digits, `-`, `_`, `.`, not starting with `.`)",
            voice_protocol::shorten(id),
            id.len()
        );
    }
    if id == LATEST {
        bail!("SESSION_ID `{LATEST}` is reserved for the link to the newest session");
    }
    Ok(())
}

/// Creates (if needed) and returns the session folder for the dataflow `dataflow_id`.
pub fn session_folder(dataflow_id: &str) -> eyre::Result<PathBuf> {
    if let Some(dir) = crate::env_opt("SESSION_DIR") {
        let dir = session_dir_path(&dir)?;
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create session folder {}", dir.display()))?;
        claim(&dir, dataflow_id, "SESSION_DIR")?;
        return Ok(dir);
    }
    let root =
        PathBuf::from(crate::env_opt("SESSIONS_ROOT").unwrap_or_else(|| "sessions".to_owned()));
    let id = crate::env_opt("SESSION_ID").unwrap_or_else(|| session_id_for_dataflow(dataflow_id));
    checked_session_id(&id)?;
    let dir = root.join(&id);
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create session folder {}", dir.display()))?;
    claim(&dir, dataflow_id, "SESSION_ID")?;
    point_latest(&root, &id);
    Ok(dir)
}

/// The link to the newest session; never a session id.
const LATEST: &str = "latest";

/// The file naming the run a session folder belongs to.
const OWNER_FILE: &str = ".dataflow";

/// What the nodes of a run write into its session folder: a folder holding any of them
/// belongs to that run. Other files (a panel a test prepared, notes) do not count.
pub const SESSION_FILES: &[&str] = &[
    "transcript.jsonl",
    "events.jsonl",
    "timeline.jsonl",
    "conversation.wav",
    "rehearsal-events.jsonl",
    "debrief.md",
    "debrief.json",
];

/// Takes `dir` for the run `dataflow_id`, or refuses it when it holds another run's
/// session files. A folder that another run marked but never wrote into (it failed at
/// start) is taken over.
pub fn claim(dir: &Path, dataflow_id: &str, setting: &str) -> eyre::Result<()> {
    let marker = dir.join(OWNER_FILE);
    let refuse = |other: &str| {
        eyre::eyre!(
            "session folder {} already holds another run (dataflow {other}); choose another {setting} or remove the folder",
            dir.display()
        )
    };
    let owner = |marker: &Path| std::fs::read_to_string(marker).map(|s| s.trim().to_owned());
    let recorded = || SESSION_FILES.iter().any(|name| dir.join(name).exists());
    match owner(&marker) {
        Ok(other) if other == dataflow_id => return Ok(()),
        Ok(other) if recorded() => return Err(refuse(&other)),
        // Marked by a run that recorded nothing: replace the mark whole (siblings of this
        // run may do the same at once; they write the same id).
        Ok(_) => {
            let temp = write_temp(dir, dataflow_id)?;
            return std::fs::rename(&temp, &marker)
                .with_context(|| format!("cannot write {}", marker.display()));
        }
        Err(_) if recorded() => {
            // A sibling of this run may have claimed it and written files since the check.
            return match owner(&marker) {
                Ok(other) if other == dataflow_id => Ok(()),
                Ok(other) => Err(refuse(&other)),
                Err(_) => Err(refuse("unknown: files of an earlier run")),
            };
        }
        Err(_) => {}
    }
    // Written whole under a private name, then linked: the marker never exists half-written,
    // and exactly one node of the run creates it.
    let temp = write_temp(dir, dataflow_id)?;
    let linked = std::fs::hard_link(&temp, &marker);
    let _ = std::fs::remove_file(&temp);
    match linked {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match owner(&marker) {
            Ok(other) if other == dataflow_id => Ok(()),
            Ok(other) => Err(refuse(&other)),
            Err(e) => Err(eyre::eyre!("cannot read {}: {e}", marker.display())),
        },
        Err(e) => Err(e).with_context(|| format!("cannot write {}", marker.display())),
    }
}

/// `dataflow_id` in a fresh hidden file of `dir`.
fn write_temp(dir: &Path, dataflow_id: &str) -> eyre::Result<PathBuf> {
    let temp = dir.join(format!(".dataflow-{}-{}", std::process::id(), unique()));
    std::fs::write(&temp, dataflow_id)
        .with_context(|| format!("cannot write in session folder {}", dir.display()))?;
    Ok(temp)
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// `latest` → the newest session (best effort: a failure only costs the shortcut).
fn point_latest(root: &Path, id: &str) {
    let link = root.join(LATEST);
    if std::fs::read_link(&link).is_ok_and(|target| target == Path::new(id)) {
        return;
    }
    let temp = root.join(format!(".latest-{}", std::process::id()));
    let _ = std::fs::remove_file(&temp);
    #[cfg(unix)]
    {
        // Replace atomically: several nodes of the run do this at once.
        if std::os::unix::fs::symlink(id, &temp)
            .and_then(|_| std::fs::rename(&temp, &link))
            .is_err()
        {
            let _ = std::fs::remove_file(&temp);
            tracing::warn!("cannot update the `latest` link in {}", root.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("claim-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn session_dirs_that_climb_out_or_are_absurd_are_refused_naming_the_variable() {
        for bad in ["../x", "sessions/../../etc", "/tmp/a/../b", "a/..", "x\0y"] {
            let e = session_dir_path(bad).unwrap_err().to_string();
            assert!(e.contains("SESSION_DIR"), "{e}");
        }
        let long = "a/".repeat(MAX_SESSION_DIR_BYTES);
        let e = session_dir_path(&long).unwrap_err().to_string();
        assert!(e.contains("SESSION_DIR") && e.contains("bytes"), "{e}");
        assert!(e.len() < 400, "the error does not repeat 4 KB: {e}");
        for good in ["/tmp/sessions/run-1", "sessions/x", "./s", "a..b/c", "/"] {
            assert_eq!(session_dir_path(good).unwrap(), PathBuf::from(good));
        }
    }

    #[test]
    fn session_ids_stay_one_short_folder_name() {
        for bad in [
            "../x", "a/b", "..", ".", ".hidden", "x\0y", "latest", "", "a\\b",
        ] {
            let e = checked_session_id(bad).unwrap_err().to_string();
            assert!(e.contains("SESSION_ID"), "{e}");
        }
        let long = "a".repeat(4096);
        let e = checked_session_id(&long).unwrap_err().to_string();
        assert!(e.contains("4096 bytes") && e.len() < 400, "{e}");
        checked_session_id("20261125-074100-abc123").unwrap();
    }

    #[test]
    fn a_folder_is_shared_within_a_run_and_refused_to_another() {
        let dir = fresh_dir("runs");
        claim(&dir, "run-a", "SESSION_ID").unwrap();
        std::fs::write(dir.join("transcript.jsonl"), "{}\n").unwrap();
        // A sibling node (or the same node restarted) of the same run.
        claim(&dir, "run-a", "SESSION_ID").unwrap();
        let refused = claim(&dir, "run-b", "SESSION_ID").unwrap_err().to_string();
        assert!(
            refused.contains("run-a") && refused.contains("SESSION_ID"),
            "{refused}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_with_files_of_an_unmarked_earlier_run_is_refused() {
        let dir = fresh_dir("unmarked");
        std::fs::write(dir.join("conversation.wav"), b"RIFF").unwrap();
        assert!(claim(&dir, "run-a", "SESSION_DIR").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn prepared_files_and_a_run_that_recorded_nothing_do_not_block_a_folder() {
        let dir = fresh_dir("prepared");
        std::fs::write(dir.join("panel.yml"), "intensity: moderate\n").unwrap();
        claim(&dir, "run-a", "SESSION_DIR").unwrap();
        // run-a failed at start: run-b may take the folder, and then it is run-b's.
        claim(&dir, "run-b", "SESSION_DIR").unwrap();
        std::fs::write(dir.join("events.jsonl"), "{}\n").unwrap();
        claim(&dir, "run-b", "SESSION_DIR").unwrap();
        assert!(claim(&dir, "run-a", "SESSION_DIR").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn many_nodes_of_one_run_claim_at_once() {
        let dir = fresh_dir("race");
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let dir = dir.clone();
                std::thread::spawn(move || claim(&dir, "run-a", "SESSION_ID"))
            })
            .collect();
        for h in handles {
            h.join().unwrap().unwrap();
        }
        assert_eq!(
            std::fs::read_to_string(dir.join(OWNER_FILE)).unwrap(),
            "run-a"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
