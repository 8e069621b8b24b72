//! The session folder shared by every node of a run.
//!
//! `SESSION_DIR` if set; otherwise `<SESSIONS_ROOT>/<session-id>` (root default
//! `sessions`), where the id is `SESSION_ID` or derived from the dataflow id, so every
//! node of one run writes into the same folder. `<SESSIONS_ROOT>/latest` points at it.

use std::path::{Path, PathBuf};

use eyre::{Context, bail};
use session_log::{is_valid_session_id, session_id_for_dataflow};

/// Creates (if needed) and returns the session folder for the dataflow `dataflow_id`.
pub fn session_folder(dataflow_id: &str) -> eyre::Result<PathBuf> {
    if let Some(dir) = crate::env_opt("SESSION_DIR") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create session folder {}", dir.display()))?;
        return Ok(dir);
    }
    let root =
        PathBuf::from(crate::env_opt("SESSIONS_ROOT").unwrap_or_else(|| "sessions".to_owned()));
    let id = crate::env_opt("SESSION_ID").unwrap_or_else(|| session_id_for_dataflow(dataflow_id));
    if !is_valid_session_id(&id) {
        bail!("SESSION_ID {id:?} is not a valid folder name (letters, digits, `-`, `_`, `.`)");
    }
    let dir = root.join(&id);
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create session folder {}", dir.display()))?;
    point_latest(&root, &id);
    Ok(dir)
}

/// `latest` → the newest session (best effort: a failure only costs the shortcut).
fn point_latest(root: &Path, id: &str) {
    let link = root.join("latest");
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
