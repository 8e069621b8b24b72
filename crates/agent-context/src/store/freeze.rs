//! Freezing a session and verifying it against its manifest.

use super::*;

impl ContextStore {
    pub(super) fn current_manifest(&self, id: &SessionId) -> Result<Manifest> {
        let dir = self.layout.session_dir(id);
        let mut manifest = Manifest::new();
        for (rel, path) in walk_files(&dir)? {
            if rel == MANIFEST_FILE {
                continue;
            }
            let bytes = fs::read(&path).map_err(io_err(&path))?;
            manifest.add(rel, &bytes);
        }
        Ok(manifest)
    }

    /// Ends the session: records `now_ms` as the freeze time, writes
    /// `MANIFEST.sha256` (every file, the store's ledger included), and makes every
    /// file and folder of the session read-only. From then on every write through the
    /// store is refused. Freezing a frozen session only re-applies the read-only
    /// permissions and returns the existing manifest.
    pub fn freeze(&self, id: &SessionId, now_ms: u64) -> Result<Manifest> {
        self.require_session(id)?;
        let dir = self.layout.session_dir(id);
        let manifest_path = self.layout.manifest_path(id);
        if manifest_path.exists() {
            let manifest = self.read_manifest(id)?;
            set_tree_readonly(&dir)?;
            return Ok(manifest);
        }
        let record_path = dir.join(LEDGER_DIR).join(SESSION_RECORD_FILE);
        let mut record: SessionRecord = read_json(&record_path)?;
        record.frozen_ms = Some(now_ms);
        write_json(&record_path, &record)?;
        let manifest = self.current_manifest(id)?;
        write_atomic(&manifest_path, manifest.render().as_bytes())?;
        set_tree_readonly(&dir)?;
        Ok(manifest)
    }

    pub(super) fn read_manifest(&self, id: &SessionId) -> Result<Manifest> {
        let path = self.layout.manifest_path(id);
        let text = match read_optional(&path)? {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => return Err(ContextError::NotFrozen(id.clone())),
        };
        Manifest::parse(&text).map_err(|source| ContextError::Manifest { path, source })
    }

    /// Recomputes the checksums of a frozen session and compares them with its
    /// manifest: modified, missing and added files are reported.
    pub fn verify(&self, id: &SessionId) -> Result<VerifyReport> {
        self.require_session(id)?;
        let recorded = self.read_manifest(id)?;
        let actual = self.current_manifest(id)?;
        Ok(VerifyReport {
            checked: recorded.len(),
            discrepancies: recorded.diff(&actual),
        })
    }
}
