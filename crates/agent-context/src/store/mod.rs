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

mod disk;
mod files;
mod freeze;
mod sessions;
mod templates;

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

use disk::*;
use templates::*;

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
}
