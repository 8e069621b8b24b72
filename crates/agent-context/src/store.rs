//! The file-system side: loading templates, creating sessions from the blueprints,
//! enforcing each file's mutability, assembling contexts, freezing and verifying.
//!
//! Every rule comes from the pure modules ([`crate::layout`], [`crate::rules`],
//! [`crate::assembly`], [`crate::manifest`]); this module only moves bytes. It reads no
//! clock: the creation and freeze times are passed in.
//!
//! Concurrency: each session file is meant to have one writing node (the spec gives
//! every file one owner). The store takes no locks; two processes appending to the same
//! file at once would be reported as tampering on the next append.
//!
//! Templates are only ever opened for reading.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::assembly::{AssembledContext, AssemblyCaps, RowText, assemble};
use crate::id::{AgentName, IdError, SessionId};
use crate::layout::{
    ContextRow, DOMAIN_KNOWLEDGE_FILE, FileRef, FileRefError, LEDGER_DIR, Layout, MANIFEST_FILE,
    MODERATOR, Owner, PANELIST_BLUEPRINT_DIR, PERSONA_FILE, SHARED_DIR, SessionFile, TEMPLATES_DIR,
    agent_owner, is_moderator,
};
use crate::manifest::{Discrepancy, Manifest, ManifestError};
use crate::rules::{LedgerRecord, RuleViolation, WriteKind, check_write};
use crate::template::{AgentTemplate, PersonaTemplate, TemplateError};

/// File in the ledger folder with the session's own record.
const SESSION_RECORD_FILE: &str = "session.json";

/// Everything that can go wrong, naming the file involved.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("template {}: {source}", path.display())]
    Template {
        path: PathBuf,
        source: TemplateError,
    },
    #[error("template {}: missing", path.display())]
    MissingTemplate { path: PathBuf },
    #[error("session template {}: {reason}", path.display())]
    Blueprint { path: PathBuf, reason: String },
    #[error("{}: {source}", path.display())]
    BadName { path: PathBuf, source: IdError },
    #[error(transparent)]
    FileRef(#[from] FileRefError),
    #[error("unknown agent `{0}` (not in templates/)")]
    UnknownAgent(String),
    #[error("session `{0}` already exists")]
    SessionExists(SessionId),
    #[error("session `{0}` does not exist")]
    NoSession(SessionId),
    #[error("session `{id}` is frozen; `{path}` cannot be written")]
    Frozen { id: SessionId, path: String },
    #[error("session `{0}` is not frozen (no {MANIFEST_FILE})")]
    NotFrozen(SessionId),
    #[error("{path}: {violation}")]
    Rule {
        path: String,
        violation: RuleViolation,
    },
    #[error("{path}: content was changed outside the store; refusing to append")]
    Tampered { path: String },
    #[error("{}: {source}", path.display())]
    Manifest {
        path: PathBuf,
        source: ManifestError,
    },
    #[error("{}: bad ledger record: {reason}", path.display())]
    Ledger { path: PathBuf, reason: String },
}

type Result<T> = std::result::Result<T, ContextError>;

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ContextError + '_ {
    move |source| ContextError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The session's own record, kept in its ledger folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    pub session_id: String,
    /// Creation time as passed in by the caller (e.g. Unix milliseconds).
    pub created_ms: u64,
    /// Freeze time as passed in by the caller; `None` while live.
    pub frozen_ms: Option<u64>,
    /// The agents the session was created for.
    pub agents: Vec<String>,
}

/// The outcome of [`ContextStore::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// Files listed in the manifest.
    pub checked: usize,
    /// Empty when the archive is intact.
    pub discrepancies: Vec<Discrepancy>,
}

impl VerifyReport {
    pub fn is_intact(&self) -> bool {
        self.discrepancies.is_empty()
    }
}

/// One blueprint folder: which session files it provides.
#[derive(Debug, Clone, Default)]
struct Blueprint {
    files: Vec<SessionFile>,
}

/// A context root with its templates loaded and validated.
#[derive(Debug, Clone)]
pub struct ContextStore {
    layout: Layout,
    agents: BTreeMap<AgentName, AgentTemplate>,
    blueprints: BTreeMap<&'static str, Blueprint>,
}

fn read_text(path: &Path) -> Result<String> {
    let bytes = fs::read(path).map_err(io_err(path))?;
    String::from_utf8(bytes).map_err(|_| ContextError::Io {
        path: path.to_owned(),
        source: io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"),
    })
}

/// Reads a file if it exists.
fn read_optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Directory entries sorted by name, without dot-files (`.gitkeep` and the like).
fn visible_entries(dir: &Path) -> Result<Vec<(String, fs::FileType, PathBuf)>> {
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

fn sync_dir(dir: &Path) {
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
fn walk_files(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<(String, PathBuf)>) -> Result<()> {
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
fn set_tree_readonly(dir: &Path) -> Result<()> {
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

fn set_readonly(path: &Path) -> Result<()> {
    let mut perms = fs::metadata(path).map_err(io_err(path))?.permissions();
    if !perms.readonly() {
        perms.set_readonly(true);
        fs::set_permissions(path, perms).map_err(io_err(path))?;
    }
    Ok(())
}

impl ContextStore {
    /// Loads and validates `root/templates/` and `root/session-templates/`. Every agent
    /// folder needs a valid `persona.md`; every blueprint file must be one the
    /// mutability tables know. Errors name the offending file.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self> {
        Self::open_layout(Layout::new(root))
    }

    /// Like [`ContextStore::open`], with the sessions in `sessions_dir` instead of
    /// `root/sessions/` (templates stay read-only under `root`).
    pub fn open_with_sessions_dir(
        root: impl Into<PathBuf>,
        sessions_dir: impl Into<PathBuf>,
    ) -> Result<Self> {
        Self::open_layout(Layout::with_sessions_dir(root, sessions_dir))
    }

    fn open_layout(layout: Layout) -> Result<Self> {
        let agents = load_templates(&layout)?;
        let mut blueprints = BTreeMap::new();
        blueprints.insert(SHARED_DIR, load_blueprint(&layout, Owner::Shared, true)?);
        let has_moderator = agents.keys().any(is_moderator);
        let has_panelist = agents.keys().any(|a| !is_moderator(a));
        blueprints.insert(
            MODERATOR,
            load_blueprint(&layout, Owner::Moderator, has_moderator)?,
        );
        blueprints.insert(
            PANELIST_BLUEPRINT_DIR,
            load_blueprint(&layout, Owner::Panelist, has_panelist)?,
        );
        // Folders other than the three blueprints are most likely a misunderstanding
        // (e.g. a per-agent `skeptic/`); say so instead of ignoring them.
        for (name, file_type, path) in visible_entries(&layout.session_templates_dir())? {
            if !file_type.is_dir() {
                continue;
            }
            if ![SHARED_DIR, MODERATOR, PANELIST_BLUEPRINT_DIR].contains(&name.as_str()) {
                return Err(ContextError::Blueprint {
                    path,
                    reason: format!(
                        "unknown blueprint folder; expected `{SHARED_DIR}`, `{MODERATOR}` or \
                         `{PANELIST_BLUEPRINT_DIR}` (one blueprint shared by all panelists)"
                    ),
                });
            }
        }
        Ok(Self {
            layout,
            agents,
            blueprints,
        })
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// All agents, sorted by name.
    pub fn agents(&self) -> impl Iterator<Item = &AgentName> {
        self.agents.keys()
    }

    /// The moderator, if the templates have one.
    pub fn moderator(&self) -> Option<&AgentName> {
        self.agents.keys().find(|a| is_moderator(a))
    }

    /// Every agent but the moderator, sorted by name.
    pub fn panelists(&self) -> impl Iterator<Item = &AgentName> {
        self.agents.keys().filter(|a| !is_moderator(a))
    }

    pub fn template(&self, agent: &AgentName) -> Option<&AgentTemplate> {
        self.agents.get(agent)
    }

    fn check_agent(&self, agent: &AgentName) -> Result<()> {
        if self.agents.contains_key(agent) {
            Ok(())
        } else {
            Err(ContextError::UnknownAgent(agent.to_string()))
        }
    }

    fn check_file(&self, file: &FileRef) -> Result<()> {
        match file.agent_name() {
            Some(agent) => self.check_agent(agent),
            None => Ok(()),
        }
    }

    /// Session ids present under `sessions/` (live and frozen), sorted.
    pub fn sessions(&self) -> Result<Vec<SessionId>> {
        let dir = self.layout.sessions_dir();
        if !dir.exists() {
            return Ok(Vec::new());
        }
        Ok(visible_entries(&dir)?
            .into_iter()
            .filter(|(_, t, _)| t.is_dir())
            .filter_map(|(name, _, _)| SessionId::new(name).ok())
            .collect())
    }

    pub fn session_exists(&self, id: &SessionId) -> bool {
        self.layout.session_dir(id).is_dir()
    }

    pub fn is_frozen(&self, id: &SessionId) -> bool {
        self.layout.manifest_path(id).exists()
    }

    fn require_session(&self, id: &SessionId) -> Result<()> {
        if self.session_exists(id) {
            Ok(())
        } else {
            Err(ContextError::NoSession(id.clone()))
        }
    }

    /// Creates `sessions/<id>/` from the blueprints: `shared/`, the moderator's folder
    /// and one folder per panelist. The copy is staged in a hidden folder and renamed
    /// into place, so a session folder is either complete or absent. `now_ms` is
    /// recorded as the creation time.
    pub fn create_session(&self, id: &SessionId, now_ms: u64) -> Result<()> {
        let all: Vec<AgentName> = self.agents.keys().cloned().collect();
        self.create_session_for(id, &all, now_ms)
    }

    /// Creates a session for `agents` under the first free id of `prefix`, `prefix-2`, ...
    /// `prefix-99` (a run's folder may already hold one), and returns that id.
    pub fn create_next_session(
        &self,
        prefix: &SessionId,
        agents: &[AgentName],
        now_ms: u64,
    ) -> Result<SessionId> {
        let id = (1..100)
            .map(|n| match n {
                1 => prefix.clone(),
                n => SessionId::new(format!("{prefix}-{n}")).unwrap_or_else(|_| prefix.clone()),
            })
            .find(|id| !self.session_exists(id))
            .ok_or_else(|| ContextError::SessionExists(prefix.clone()))?;
        self.create_session_for(&id, agents, now_ms)?;
        Ok(id)
    }

    /// Like [`ContextStore::create_session`], with folders for `agents` only (the ones
    /// taking part in this conversation). Each must have a template.
    pub fn create_session_for(
        &self,
        id: &SessionId,
        agents: &[AgentName],
        now_ms: u64,
    ) -> Result<()> {
        for agent in agents {
            self.check_agent(agent)?;
        }
        let sessions = self.layout.sessions_dir();
        fs::create_dir_all(&sessions).map_err(io_err(&sessions))?;
        let target = self.layout.session_dir(id);
        if target.exists() {
            return Err(ContextError::SessionExists(id.clone()));
        }
        let staging = self.layout.staging_dir(id);
        if staging.exists() {
            fs::remove_dir_all(&staging).map_err(io_err(&staging))?;
        }
        let result = self
            .stage_session(id, agents, &staging, now_ms)
            .and_then(|()| {
                fs::rename(&staging, &target).map_err(|e| {
                    if target.exists() {
                        ContextError::SessionExists(id.clone())
                    } else {
                        io_err(&target)(e)
                    }
                })
            });
        if result.is_err() {
            let _ = fs::remove_dir_all(&staging);
        }
        result?;
        sync_dir(&sessions);
        Ok(())
    }

    fn stage_session(
        &self,
        id: &SessionId,
        agents: &[AgentName],
        staging: &Path,
        now_ms: u64,
    ) -> Result<()> {
        let agents: std::collections::BTreeSet<&AgentName> = agents.iter().collect();
        let mut folders: Vec<(Option<&AgentName>, Owner)> = vec![(None, Owner::Shared)];
        folders.extend(agents.iter().map(|a| (Some(*a), agent_owner(a))));
        for (agent, owner) in folders {
            let folder = agent.map_or(SHARED_DIR, |a| a.as_str());
            let dir = staging.join(folder);
            fs::create_dir_all(&dir).map_err(io_err(&dir))?;
            let blueprint_dir = self.layout.blueprint_dir(owner);
            let key = match owner {
                Owner::Shared => SHARED_DIR,
                Owner::Moderator => MODERATOR,
                Owner::Panelist => PANELIST_BLUEPRINT_DIR,
            };
            for file in &self.blueprints[key].files {
                let from = blueprint_dir.join(file.file_name());
                let bytes = fs::read(&from).map_err(io_err(&from))?;
                write_durable(&dir.join(file.file_name()), &bytes)?;
                let record = LedgerRecord::of(&bytes, 0);
                let ledger_dir = staging.join(LEDGER_DIR).join(folder);
                fs::create_dir_all(&ledger_dir).map_err(io_err(&ledger_dir))?;
                let ledger = ledger_dir.join(format!("{}.json", file.file_name()));
                write_durable(&ledger, &to_json(&ledger, &record)?)?;
            }
        }
        let record = SessionRecord {
            session_id: id.to_string(),
            created_ms: now_ms,
            frozen_ms: None,
            agents: agents.iter().map(|a| a.to_string()).collect(),
        };
        write_json(&staging.join(LEDGER_DIR).join(SESSION_RECORD_FILE), &record)
    }

    /// The session's own record (creation and freeze times, agents).
    pub fn session_record(&self, id: &SessionId) -> Result<SessionRecord> {
        self.require_session(id)?;
        read_json(
            &self
                .layout
                .session_dir(id)
                .join(LEDGER_DIR)
                .join(SESSION_RECORD_FILE),
        )
    }

    fn ledger(&self, id: &SessionId, file: &FileRef) -> Result<Option<LedgerRecord>> {
        let path = self.layout.ledger_path(id, file);
        if path.exists() {
            read_json(&path).map(Some)
        } else {
            Ok(None)
        }
    }

    fn check_writable(&self, id: &SessionId, file: &FileRef) -> Result<()> {
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
        let intact = match (&record, &current) {
            (Some(r), Some(bytes)) => r.matches(bytes),
            (None, None) => true,
            // A file without a record, or a recorded file that vanished.
            _ => false,
        };
        if !intact {
            return Err(ContextError::Tampered { path: display });
        }
        if text.is_empty() {
            return Ok(());
        }
        let mut f = OpenOptions::new()
            .append(true)
            .create(true)
            .open(&path)
            .map_err(io_err(&path))?;
        f.write_all(text.as_bytes()).map_err(io_err(&path))?;
        f.sync_data().map_err(io_err(&path))?;
        let mut all = current.unwrap_or_default();
        all.extend_from_slice(text.as_bytes());
        write_json(
            &self.layout.ledger_path(id, file),
            &LedgerRecord::of(&all, writes + 1),
        )
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

    fn current_manifest(&self, id: &SessionId) -> Result<Manifest> {
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

    fn read_manifest(&self, id: &SessionId) -> Result<Manifest> {
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

fn to_json<T: Serialize>(path: &Path, value: &T) -> Result<Vec<u8>> {
    serde_json::to_vec_pretty(value).map_err(|e| ContextError::Ledger {
        path: path.to_owned(),
        reason: e.to_string(),
    })
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    write_atomic(path, &to_json(path, value)?)
}

/// Writes a new file in a private staging folder (no rename needed: nobody reads it
/// before the whole folder is renamed into place) and flushes it to disk.
fn write_durable(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = File::create(path).map_err(io_err(path))?;
    f.write_all(bytes).map_err(io_err(path))?;
    f.sync_all().map_err(io_err(path))
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T> {
    let text = read_text(path)?;
    serde_json::from_str(&text).map_err(|e| ContextError::Ledger {
        path: path.to_owned(),
        reason: e.to_string(),
    })
}

fn load_templates(layout: &Layout) -> Result<BTreeMap<AgentName, AgentTemplate>> {
    let dir = layout.templates_dir();
    if !dir.is_dir() {
        return Err(ContextError::MissingTemplate { path: dir });
    }
    let mut agents = BTreeMap::new();
    for (name, file_type, path) in visible_entries(&dir)? {
        if !file_type.is_dir() {
            continue; // e.g. a README next to the agent folders
        }
        let agent = AgentName::new(name.as_str()).map_err(|source| ContextError::BadName {
            path: path.clone(),
            source,
        })?;
        if agent.as_str() == SHARED_DIR {
            return Err(ContextError::Blueprint {
                path,
                reason: format!("`{SHARED_DIR}` is reserved for the shared session folder"),
            });
        }
        let template = load_agent(layout, &agent)?;
        agents.insert(agent, template);
    }
    if agents.is_empty() {
        return Err(ContextError::MissingTemplate {
            path: dir.join(format!("<agent>/{PERSONA_FILE}")),
        });
    }
    Ok(agents)
}

fn load_agent(layout: &Layout, agent: &AgentName) -> Result<AgentTemplate> {
    let persona_path = layout.persona_path(agent);
    if !persona_path.is_file() {
        return Err(ContextError::MissingTemplate { path: persona_path });
    }
    let persona = PersonaTemplate::parse(&read_text(&persona_path)?, agent).map_err(|source| {
        ContextError::Template {
            path: persona_path.clone(),
            source,
        }
    })?;
    let mut domain_knowledge = None;
    let mut documents = BTreeMap::new();
    for (name, file_type, path) in visible_entries(&layout.agent_template_dir(agent))? {
        if !file_type.is_file() || name == PERSONA_FILE || !name.ends_with(".md") {
            continue;
        }
        let text = read_text(&path)?;
        if name == DOMAIN_KNOWLEDGE_FILE {
            domain_knowledge = (!text.trim().is_empty()).then_some(text);
        } else {
            documents.insert(name, text);
        }
    }
    Ok(AgentTemplate {
        name: agent.clone(),
        persona,
        domain_knowledge,
        documents,
    })
}

fn load_blueprint(layout: &Layout, owner: Owner, required: bool) -> Result<Blueprint> {
    let dir = layout.blueprint_dir(owner);
    if !dir.is_dir() {
        if required {
            return Err(ContextError::Blueprint {
                path: dir,
                reason: "missing folder".to_owned(),
            });
        }
        return Ok(Blueprint::default());
    }
    let mut files = Vec::new();
    for (name, file_type, path) in visible_entries(&dir)? {
        if !file_type.is_file() {
            return Err(ContextError::Blueprint {
                path,
                reason: "blueprints hold files only".to_owned(),
            });
        }
        let Some(file) = SessionFile::lookup(owner, &name) else {
            let known: Vec<&str> = SessionFile::ALL
                .iter()
                .filter(|f| f.owner() == owner)
                .map(|f| f.file_name())
                .collect();
            return Err(ContextError::Blueprint {
                path,
                reason: format!(
                    "unknown session file; this folder may hold {}",
                    known.join(", ")
                ),
            });
        };
        read_text(&path)?;
        files.push(file);
    }
    Ok(Blueprint { files })
}
