//! One session file: its mutability checked, written, appended to, read, assembled into a context.

use super::*;

impl ContextStore {
    pub(super) fn ledger(&self, id: &SessionId, file: &FileRef) -> Result<Option<LedgerRecord>> {
        let path = self.layout.ledger_path(id, file);
        if path.exists() {
            read_json(&path).map(Some)
        } else {
            Ok(None)
        }
    }

    pub(super) fn check_writable(&self, id: &SessionId, file: &FileRef) -> Result<()> {
        self.check_file(file)?;
        self.require_session(id)?;
        if self.is_frozen(id) {
            return Err(ContextError::Frozen {
                id: id.clone(),
                path: file.relative_path(),
            });
        }
        Ok(())
    }

    /// Replaces the content of a write-once, write-few or overwrite file, atomically.
    /// Fails on append-only files, on a second write of a write-once file, past the
    /// write-few limit, and on a frozen session.
    pub fn write(&self, id: &SessionId, file: &FileRef, content: &str) -> Result<()> {
        self.check_writable(id, file)?;
        let display = self.layout.display_path(id, file);
        let record = self.ledger(id, file)?;
        let writes = record.as_ref().map_or(0, |r| r.writes);
        check_write(file.mutability(), WriteKind::Replace, writes).map_err(|violation| {
            ContextError::Rule {
                path: display.clone(),
                violation,
            }
        })?;
        let path = self.layout.file_path(id, file);
        write_atomic(&path, content.as_bytes())?;
        write_json(
            &self.layout.ledger_path(id, file),
            &LedgerRecord::of(content.as_bytes(), writes + 1),
        )
    }

    /// Adds `text` to the end of an append-only file (creating it if the blueprint had
    /// none). Before appending, the file's current content is checked against what the
    /// store last wrote (length and SHA-256); a difference is [`ContextError::Tampered`]
    /// and nothing is written. The check reads the file once per append, which is cheap
    /// for the size of one session's transcript.
    pub fn append(&self, id: &SessionId, file: &FileRef, text: &str) -> Result<()> {
        self.check_writable(id, file)?;
        let display = self.layout.display_path(id, file);
        let record = self.ledger(id, file)?;
        let writes = record.as_ref().map_or(0, |r| r.writes);
        check_write(file.mutability(), WriteKind::Append, writes).map_err(|violation| {
            ContextError::Rule {
                path: display.clone(),
                violation,
            }
        })?;
        let path = self.layout.file_path(id, file);
        let current = read_optional(&path)?;
        // The file as the record says, or as its pending append left it: the store was
        // stopped after writing the text and before recording it.
        let record = match (record, &current) {
            (Some(r), Some(bytes)) if r.matches(bytes) => Some(r),
            (Some(r), Some(bytes)) if r.pending.as_ref().is_some_and(|p| p.matches(bytes)) => {
                r.pending.map(|p| *p)
            }
            // Not written yet (a record with no write is one whose first append was under
            // way and never reached the file).
            (None, None) => None,
            (Some(r), None) if r.writes == 0 && r.len == 0 && r.pending.is_some() => None,
            // A file without a record, a recorded file that vanished, or other content.
            _ => return Err(ContextError::Tampered { path: display }),
        };
        if text.is_empty() {
            return Ok(());
        }
        let writes = record.as_ref().map_or(0, |r| r.writes);
        let mut all = current.unwrap_or_default();
        let before = record.unwrap_or_else(|| LedgerRecord::of(&all, 0));
        all.extend_from_slice(text.as_bytes());
        let done = LedgerRecord::of(&all, writes + 1);
        let ledger = self.layout.ledger_path(id, file);
        write_json(
            &ledger,
            &LedgerRecord {
                pending: Some(Box::new(done.clone())),
                ..before
            },
        )?;
        let mut f = OpenOptions::new()
            .append(true)
            .create(true)
            .open(&path)
            .map_err(io_err(&path))?;
        f.write_all(text.as_bytes()).map_err(io_err(&path))?;
        f.sync_data().map_err(io_err(&path))?;
        write_json(&ledger, &done)
    }

    /// The current text of a session file; `None` if it does not exist. Works on
    /// frozen sessions too.
    pub fn read(&self, id: &SessionId, file: &FileRef) -> Result<Option<String>> {
        self.check_file(file)?;
        self.require_session(id)?;
        let path = self.layout.file_path(id, file);
        Ok(read_optional(&path)?.map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    /// The context of one call of `agent`, in the spec's table order (see
    /// [`crate::assembly`] for skipping and caps). The persona part is the persona's
    /// body (its system prompt); the front matter is metadata for the runtime (voice,
    /// names), not prompt text. Reads every session file of the call once; the
    /// templates come from memory (loaded by [`ContextStore::open`]).
    pub fn assemble(
        &self,
        id: &SessionId,
        agent: &AgentName,
        caps: AssemblyCaps,
    ) -> Result<AssembledContext> {
        let rows: Vec<ContextRow> = ContextRow::rows_for(agent).collect();
        self.assemble_rows(id, agent, &rows, caps)
    }

    /// Like [`ContextStore::assemble`], restricted to `rows` (still in table order;
    /// rows that do not apply to `agent` are left out). For example the inputs of a
    /// focus brief at session start, [`ContextRow::FOCUS_BRIEF_INPUTS`].
    pub fn assemble_rows(
        &self,
        id: &SessionId,
        agent: &AgentName,
        rows: &[ContextRow],
        caps: AssemblyCaps,
    ) -> Result<AssembledContext> {
        self.require_session(id)?;
        let template = self
            .agents
            .get(agent)
            .ok_or_else(|| ContextError::UnknownAgent(agent.to_string()))?;
        let wanted = rows;
        let mut rows = Vec::new();
        for row in ContextRow::rows_for(agent).filter(|r| wanted.contains(r)) {
            let (path, content) = match row {
                ContextRow::Persona => (
                    format!("{TEMPLATES_DIR}/{agent}/{PERSONA_FILE}"),
                    Some(template.persona.system_prompt.clone()),
                ),
                ContextRow::DomainKnowledge => (
                    format!("{TEMPLATES_DIR}/{agent}/{DOMAIN_KNOWLEDGE_FILE}"),
                    template.domain_knowledge.clone(),
                ),
                _ => {
                    let Some(session_file) = row.session_file() else {
                        continue;
                    };
                    let agent = (session_file.owner() != Owner::Shared).then(|| agent.clone());
                    let file = FileRef::new(session_file, agent)?;
                    (self.layout.display_path(id, &file), self.read(id, &file)?)
                }
            };
            rows.push(RowText { row, path, content });
        }
        Ok(assemble(rows, caps))
    }
}
