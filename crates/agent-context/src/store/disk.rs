//! Bytes on disk: atomic and durable writes, JSON, listing and walking folders, read-only trees.

use super::*;

pub(super) fn read_text(path: &Path) -> Result<String> {
    let bytes = fs::read(path).map_err(io_err(path))?;
    String::from_utf8(bytes).map_err(|_| ContextError::Io {
        path: path.to_owned(),
        source: io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"),
    })
}

/// Reads a file if it exists.
pub(super) fn read_optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Directory entries sorted by name, without dot-files (`.gitkeep` and the like).
pub(super) fn visible_entries(dir: &Path) -> Result<Vec<(String, fs::FileType, PathBuf)>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_err(dir))? {
        let entry = entry.map_err(io_err(dir))?;
        let path = entry.path();
        let file_type = entry.file_type().map_err(io_err(&path))?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            return Err(ContextError::Io {
                path,
                source: io::Error::new(io::ErrorKind::InvalidData, "file name is not UTF-8"),
            });
        };
        if !name.starts_with('.') {
            out.push((name, file_type, path));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

pub(super) fn sync_dir(dir: &Path) {
    // Persists a rename on POSIX; directories cannot be opened this way everywhere, and
    // the rename itself is already atomic, so failure here is not an error.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Replaces `path` atomically: a temporary file in the same folder, flushed to disk,
/// then renamed over the target. Readers see the old or the new content, never a mix,
/// and no temporary file is left behind, also not on error.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp"));
    let result = (|| {
        // A temporary file left by a crash is stale: this file has a single writer.
        match fs::remove_file(&tmp) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if let Err(source) = result {
        let _ = fs::remove_file(&tmp);
        return Err(ContextError::Io {
            path: path.to_owned(),
            source,
        });
    }
    sync_dir(dir);
    Ok(())
}

/// All files under `dir`, as `/`-separated paths relative to it, sorted.
pub(super) fn walk_files(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    pub(super) fn walk(dir: &Path, prefix: &str, out: &mut Vec<(String, PathBuf)>) -> Result<()> {
        for entry in fs::read_dir(dir).map_err(io_err(dir))? {
            let entry = entry.map_err(io_err(dir))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if entry.file_type().map_err(io_err(&path))?.is_dir() {
                walk(&path, &rel, out)?;
            } else {
                out.push((rel, path));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, "", &mut out)?;
    out.sort();
    Ok(out)
}

/// Sets `dir`, everything below it, read-only (files first, folders last).
pub(super) fn set_tree_readonly(dir: &Path) -> Result<()> {
    for entry in fs::read_dir(dir).map_err(io_err(dir))? {
        let entry = entry.map_err(io_err(dir))?;
        let path = entry.path();
        if entry.file_type().map_err(io_err(&path))?.is_dir() {
            set_tree_readonly(&path)?;
        } else {
            set_readonly(&path)?;
        }
    }
    set_readonly(dir)
}

pub(super) fn set_readonly(path: &Path) -> Result<()> {
    let mut perms = fs::metadata(path).map_err(io_err(path))?.permissions();
    if !perms.readonly() {
        perms.set_readonly(true);
        fs::set_permissions(path, perms).map_err(io_err(path))?;
    }
    Ok(())
}

pub(super) fn to_json<T: Serialize>(path: &Path, value: &T) -> Result<Vec<u8>> {
    serde_json::to_vec_pretty(value).map_err(|e| ContextError::Ledger {
        path: path.to_owned(),
        reason: e.to_string(),
    })
}

pub(super) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    write_atomic(path, &to_json(path, value)?)
}

/// Writes a new file in a private staging folder (no rename needed: nobody reads it
/// before the whole folder is renamed into place) and flushes it to disk.
pub(super) fn write_durable(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = File::create(path).map_err(io_err(path))?;
    f.write_all(bytes).map_err(io_err(path))?;
    f.sync_all().map_err(io_err(path))
}

pub(super) fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T> {
    let text = read_text(path)?;
    serde_json::from_str(&text).map_err(|e| ContextError::Ledger {
        path: path.to_owned(),
        reason: e.to_string(),
    })
}
