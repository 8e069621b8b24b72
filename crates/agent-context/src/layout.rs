//! Where every file lives and how it may change: the spec's directory tree and its
//! mutability tables, as data.
//!
//! ```text
//! <root>/
//! ├── templates/<agent>/persona.md            immutable (read-only at run time)
//! ├── templates/<agent>/domain-knowledge.md   immutable, optional
//! ├── templates/<agent>/*.md                  immutable, free-form (e.g. orchestration.md)
//! ├── session-templates/shared/               blueprint of sessions/<id>/shared/
//! ├── session-templates/moderator/            blueprint of sessions/<id>/moderator/
//! ├── session-templates/panelist/             blueprint shared by every other agent
//! └── sessions/<id>/{shared,<agent>...}/      copied from the blueprints at start
//! ```
//!
//! The spec draws the per-panelist blueprint as `{skeptic,analyst,contrarian}/`; since
//! agents are not hard-coded, it is one folder, [`PANELIST_BLUEPRINT_DIR`], copied once per
//! panelist. The agent whose template folder is named [`MODERATOR`] is the moderator and
//! gets the moderator blueprint; every other agent is a panelist.
//!
//! All functions here only compute paths; nothing touches the file system.

use std::path::{Path, PathBuf};

use crate::id::{AgentName, SessionId};

pub const TEMPLATES_DIR: &str = "templates";
pub const SESSION_TEMPLATES_DIR: &str = "session-templates";
pub const SESSIONS_DIR: &str = "sessions";
pub const SHARED_DIR: &str = "shared";
/// Name of the moderator agent, and of its blueprint folder.
pub const MODERATOR: &str = "moderator";
/// Blueprint folder copied once per panelist.
pub const PANELIST_BLUEPRINT_DIR: &str = "panelist";
pub const PERSONA_FILE: &str = "persona.md";
pub const DOMAIN_KNOWLEDGE_FILE: &str = "domain-knowledge.md";
/// Checksums of a frozen session, in `sha256sum` format, at the session folder's top.
pub const MANIFEST_FILE: &str = "MANIFEST.sha256";
/// The store's own bookkeeping inside a session (write counts, append-only checksums).
pub const LEDGER_DIR: &str = ".ledger";
/// How often `external-intel.md` may be written: the initial research plus up to three
/// refreshes during a session. The spec says "write-few" without a number.
pub const EXTERNAL_INTEL_MAX_WRITES: u32 = 4;

/// How a file may change during a session (the spec's "Mutability" column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mutability {
    /// Templates: never written at run time.
    Immutable,
    /// Written exactly once (replacing its blueprint placeholder, if any).
    WriteOnce,
    /// Replaced as a whole, at most `max_writes` times.
    WriteFew { max_writes: u32 },
    /// Only ever extended at the end; existing content is never changed.
    AppendOnly,
    /// Replaced as a whole, any number of times (atomically).
    Overwrite,
}

/// Which part of a session folder a file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner {
    /// `sessions/<id>/shared/`
    Shared,
    /// `sessions/<id>/moderator/`
    Moderator,
    /// `sessions/<id>/<panelist>/`, one per panelist.
    Panelist,
}

/// Every file a session may hold besides the store's own bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SessionFile {
    SessionConfig,
    DeckContent,
    ExternalIntel,
    BoardDossier,
    PresenterTranscript,
    ExchangeHistory,
    SessionState,
    GeneratedPhrases,
    DebriefNotes,
    FocusBrief,
    ExchangeNotes,
    CandidateQuestion,
    PresenterProfile,
}

impl SessionFile {
    pub const ALL: [SessionFile; 13] = [
        SessionFile::SessionConfig,
        SessionFile::DeckContent,
        SessionFile::ExternalIntel,
        SessionFile::BoardDossier,
        SessionFile::PresenterTranscript,
        SessionFile::ExchangeHistory,
        SessionFile::SessionState,
        SessionFile::GeneratedPhrases,
        SessionFile::DebriefNotes,
        SessionFile::FocusBrief,
        SessionFile::ExchangeNotes,
        SessionFile::CandidateQuestion,
        SessionFile::PresenterProfile,
    ];

    pub fn file_name(self) -> &'static str {
        match self {
            SessionFile::SessionConfig => "session-config.md",
            SessionFile::DeckContent => "deck-content.md",
            SessionFile::ExternalIntel => "external-intel.md",
            SessionFile::BoardDossier => "board-dossier.md",
            SessionFile::PresenterTranscript => "presenter-transcript.md",
            SessionFile::ExchangeHistory => "exchange-history.md",
            SessionFile::SessionState => "session-state.md",
            SessionFile::GeneratedPhrases => "generated-phrases.md",
            SessionFile::DebriefNotes => "debrief-notes.md",
            SessionFile::FocusBrief => "focus-brief.md",
            SessionFile::ExchangeNotes => "exchange-notes.md",
            SessionFile::CandidateQuestion => "candidate-question.md",
            SessionFile::PresenterProfile => "presenter-profile.md",
        }
    }

    /// The spec's mutability of this file. `board-dossier.md` is not in the spec's
    /// tables; it is generated once at start like `deck-content.md`, so it is write-once.
    /// `debrief-notes.md` "accumulates", so it is append-only.
    pub fn mutability(self) -> Mutability {
        match self {
            SessionFile::SessionConfig
            | SessionFile::DeckContent
            | SessionFile::BoardDossier
            | SessionFile::FocusBrief => Mutability::WriteOnce,
            SessionFile::ExternalIntel => Mutability::WriteFew {
                max_writes: EXTERNAL_INTEL_MAX_WRITES,
            },
            SessionFile::PresenterTranscript
            | SessionFile::ExchangeHistory
            | SessionFile::DebriefNotes
            | SessionFile::ExchangeNotes
            | SessionFile::PresenterProfile => Mutability::AppendOnly,
            SessionFile::SessionState
            | SessionFile::GeneratedPhrases
            | SessionFile::CandidateQuestion => Mutability::Overwrite,
        }
    }

    pub fn owner(self) -> Owner {
        match self {
            SessionFile::SessionConfig
            | SessionFile::DeckContent
            | SessionFile::ExternalIntel
            | SessionFile::BoardDossier
            | SessionFile::PresenterTranscript
            | SessionFile::ExchangeHistory => Owner::Shared,
            SessionFile::SessionState
            | SessionFile::GeneratedPhrases
            | SessionFile::DebriefNotes => Owner::Moderator,
            SessionFile::FocusBrief
            | SessionFile::ExchangeNotes
            | SessionFile::CandidateQuestion
            | SessionFile::PresenterProfile => Owner::Panelist,
        }
    }

    /// The file called `name` owned by `owner`, if the tables know it.
    pub fn lookup(owner: Owner, name: &str) -> Option<SessionFile> {
        Self::ALL
            .into_iter()
            .find(|f| f.owner() == owner && f.file_name() == name)
    }
}

/// Whether `agent` is the moderator (see the module documentation).
pub fn is_moderator(agent: &AgentName) -> bool {
    agent.as_str() == MODERATOR
}

/// The owner kind of an agent's session folder.
pub fn agent_owner(agent: &AgentName) -> Owner {
    if is_moderator(agent) {
        Owner::Moderator
    } else {
        Owner::Panelist
    }
}

/// A file that a given owner may not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileRefError {
    #[error("`{file}` is a shared session file; it belongs to no agent")]
    SharedWithAgent { file: &'static str },
    #[error("`{file}` belongs to an agent's folder; name the agent")]
    MissingAgent { file: &'static str },
    #[error("`{file}` belongs to the moderator, not to `{agent}`")]
    ModeratorOnly { file: &'static str, agent: String },
    #[error("`{file}` belongs to a panelist, not to the moderator")]
    PanelistOnly { file: &'static str },
}

/// One concrete file of a session: which file, and for agent files, whose.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileRef {
    file: SessionFile,
    agent: Option<AgentName>,
}

impl FileRef {
    /// A file in `shared/`.
    pub fn shared(file: SessionFile) -> Result<Self, FileRefError> {
        Self::new(file, None)
    }

    /// A file in `agent`'s folder.
    pub fn agent(agent: &AgentName, file: SessionFile) -> Result<Self, FileRefError> {
        Self::new(file, Some(agent.clone()))
    }

    /// Checks that the owner of `file` matches `agent` (none for shared files).
    pub fn new(file: SessionFile, agent: Option<AgentName>) -> Result<Self, FileRefError> {
        let name = file.file_name();
        match (file.owner(), &agent) {
            (Owner::Shared, None) => {}
            (Owner::Shared, Some(_)) => return Err(FileRefError::SharedWithAgent { file: name }),
            (_, None) => return Err(FileRefError::MissingAgent { file: name }),
            (Owner::Moderator, Some(a)) if !is_moderator(a) => {
                return Err(FileRefError::ModeratorOnly {
                    file: name,
                    agent: a.to_string(),
                });
            }
            (Owner::Panelist, Some(a)) if is_moderator(a) => {
                return Err(FileRefError::PanelistOnly { file: name });
            }
            _ => {}
        }
        Ok(Self { file, agent })
    }

    pub fn file(&self) -> SessionFile {
        self.file
    }

    pub fn agent_name(&self) -> Option<&AgentName> {
        self.agent.as_ref()
    }

    pub fn mutability(&self) -> Mutability {
        self.file.mutability()
    }

    /// The folder inside the session: `shared` or the agent's name.
    pub fn folder(&self) -> &str {
        self.agent.as_ref().map_or(SHARED_DIR, |a| a.as_str())
    }

    /// Path inside the session folder, always with `/`: `shared/deck-content.md`.
    pub fn relative_path(&self) -> String {
        format!("{}/{}", self.folder(), self.file.file_name())
    }
}

/// The 11 rows of the spec's "Context Assembly Order (Per Agent Call)" table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContextRow {
    Persona,
    DomainKnowledge,
    SessionConfig,
    DeckContent,
    ExternalIntel,
    PresenterTranscript,
    ExchangeHistory,
    FocusBrief,
    ExchangeNotes,
    PresenterProfile,
    CandidateQuestion,
}

impl ContextRow {
    /// The table, in its order.
    pub const ALL: [ContextRow; 11] = [
        ContextRow::Persona,
        ContextRow::DomainKnowledge,
        ContextRow::SessionConfig,
        ContextRow::DeckContent,
        ContextRow::ExternalIntel,
        ContextRow::PresenterTranscript,
        ContextRow::ExchangeHistory,
        ContextRow::FocusBrief,
        ContextRow::ExchangeNotes,
        ContextRow::PresenterProfile,
        ContextRow::CandidateQuestion,
    ];

    /// What an agent's focus brief is generated from at session start (spec, "Session
    /// Created"): persona, domain knowledge, deck content and external intel.
    pub const FOCUS_BRIEF_INPUTS: [ContextRow; 4] = [
        ContextRow::Persona,
        ContextRow::DomainKnowledge,
        ContextRow::DeckContent,
        ContextRow::ExternalIntel,
    ];

    /// The row's `#` in the spec's table (1-based).
    pub fn number(self) -> usize {
        Self::ALL.iter().position(|r| *r == self).unwrap_or(0) + 1
    }

    /// Human-readable source label, used as the part's header.
    pub fn label(self) -> &'static str {
        match self {
            ContextRow::Persona => "Persona",
            ContextRow::DomainKnowledge => "Domain knowledge",
            ContextRow::SessionConfig => "Session config",
            ContextRow::DeckContent => "Deck content",
            ContextRow::ExternalIntel => "External intel",
            ContextRow::PresenterTranscript => "Presenter transcript",
            ContextRow::ExchangeHistory => "Exchange history",
            ContextRow::FocusBrief => "Focus brief",
            ContextRow::ExchangeNotes => "Exchange notes",
            ContextRow::PresenterProfile => "Presenter profile",
            ContextRow::CandidateQuestion => "Candidate question",
        }
    }

    /// The session file behind this row; `None` for the two template rows.
    pub fn session_file(self) -> Option<SessionFile> {
        match self {
            ContextRow::Persona | ContextRow::DomainKnowledge => None,
            ContextRow::SessionConfig => Some(SessionFile::SessionConfig),
            ContextRow::DeckContent => Some(SessionFile::DeckContent),
            ContextRow::ExternalIntel => Some(SessionFile::ExternalIntel),
            ContextRow::PresenterTranscript => Some(SessionFile::PresenterTranscript),
            ContextRow::ExchangeHistory => Some(SessionFile::ExchangeHistory),
            ContextRow::FocusBrief => Some(SessionFile::FocusBrief),
            ContextRow::ExchangeNotes => Some(SessionFile::ExchangeNotes),
            ContextRow::PresenterProfile => Some(SessionFile::PresenterProfile),
            ContextRow::CandidateQuestion => Some(SessionFile::CandidateQuestion),
        }
    }

    pub fn mutability(self) -> Mutability {
        self.session_file()
            .map_or(Mutability::Immutable, SessionFile::mutability)
    }

    /// The rows that apply to `agent`: all 11 for a panelist; the moderator has no
    /// focus brief, exchange notes, presenter profile or candidate question, so its
    /// calls stop after row 7 (its own state is read by the moderator node directly).
    pub fn rows_for(agent: &AgentName) -> impl Iterator<Item = ContextRow> {
        let owner = agent_owner(agent);
        Self::ALL.into_iter().filter(move |row| {
            row.session_file()
                .is_none_or(|f| f.owner() == Owner::Shared || f.owner() == owner)
        })
    }
}

/// Paths under one context root. Pure path arithmetic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    root: PathBuf,
    /// Where sessions go when not under the root (see [`Layout::with_sessions_dir`]).
    sessions: Option<PathBuf>,
}

impl Layout {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            sessions: None,
        }
    }

    /// Templates under `root`, sessions under `sessions` instead of `root/sessions`
    /// (e.g. the session folder of one dataflow run).
    pub fn with_sessions_dir(root: impl Into<PathBuf>, sessions: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            sessions: Some(sessions.into()),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn templates_dir(&self) -> PathBuf {
        self.root.join(TEMPLATES_DIR)
    }

    pub fn agent_template_dir(&self, agent: &AgentName) -> PathBuf {
        self.templates_dir().join(agent.as_str())
    }

    pub fn persona_path(&self, agent: &AgentName) -> PathBuf {
        self.agent_template_dir(agent).join(PERSONA_FILE)
    }

    pub fn domain_knowledge_path(&self, agent: &AgentName) -> PathBuf {
        self.agent_template_dir(agent).join(DOMAIN_KNOWLEDGE_FILE)
    }

    pub fn session_templates_dir(&self) -> PathBuf {
        self.root.join(SESSION_TEMPLATES_DIR)
    }

    /// The blueprint folder for an owner kind.
    pub fn blueprint_dir(&self, owner: Owner) -> PathBuf {
        self.session_templates_dir().join(match owner {
            Owner::Shared => SHARED_DIR,
            Owner::Moderator => MODERATOR,
            Owner::Panelist => PANELIST_BLUEPRINT_DIR,
        })
    }

    pub fn sessions_dir(&self) -> PathBuf {
        match &self.sessions {
            Some(dir) => dir.clone(),
            None => self.root.join(SESSIONS_DIR),
        }
    }

    pub fn session_dir(&self, id: &SessionId) -> PathBuf {
        self.sessions_dir().join(id.as_str())
    }

    /// Where a new session is assembled before it is renamed into place, so that a
    /// crash during creation never leaves a half-copied `sessions/<id>/`. Session ids
    /// contain no dot, so this name can never be a session id.
    pub fn staging_dir(&self, id: &SessionId) -> PathBuf {
        self.sessions_dir().join(format!(".{id}.creating"))
    }

    pub fn file_path(&self, id: &SessionId, file: &FileRef) -> PathBuf {
        self.session_dir(id)
            .join(file.folder())
            .join(file.file().file_name())
    }

    pub fn ledger_path(&self, id: &SessionId, file: &FileRef) -> PathBuf {
        self.session_dir(id)
            .join(LEDGER_DIR)
            .join(file.folder())
            .join(format!("{}.json", file.file().file_name()))
    }

    pub fn manifest_path(&self, id: &SessionId) -> PathBuf {
        self.session_dir(id).join(MANIFEST_FILE)
    }

    /// Path of `file` relative to the root, with `/`: `sessions/s1/shared/deck-content.md`.
    pub fn display_path(&self, id: &SessionId, file: &FileRef) -> String {
        format!("{SESSIONS_DIR}/{id}/{}", file.relative_path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(s: &str) -> AgentName {
        AgentName::new(s).unwrap()
    }

    #[test]
    fn mutability_matches_the_spec_tables() {
        use Mutability::*;
        use SessionFile::*;
        let expected = [
            (SessionConfig, WriteOnce),
            (DeckContent, WriteOnce),
            (
                ExternalIntel,
                WriteFew {
                    max_writes: EXTERNAL_INTEL_MAX_WRITES,
                },
            ),
            (BoardDossier, WriteOnce),
            (PresenterTranscript, AppendOnly),
            (ExchangeHistory, AppendOnly),
            (SessionState, Overwrite),
            (GeneratedPhrases, Overwrite),
            (DebriefNotes, AppendOnly),
            (FocusBrief, WriteOnce),
            (ExchangeNotes, AppendOnly),
            (CandidateQuestion, Overwrite),
            (PresenterProfile, AppendOnly),
        ];
        for (file, m) in expected {
            assert_eq!(file.mutability(), m, "{file:?}");
        }
        assert_eq!(ContextRow::Persona.mutability(), Immutable);
        assert_eq!(ContextRow::DomainKnowledge.mutability(), Immutable);
    }

    #[test]
    fn table_order_and_numbers() {
        let numbers: Vec<usize> = ContextRow::ALL.iter().map(|r| r.number()).collect();
        assert_eq!(numbers, (1..=11).collect::<Vec<_>>());
        assert_eq!(ContextRow::CandidateQuestion.number(), 11);
        assert_eq!(ContextRow::PresenterTranscript.number(), 6);
        // Table rows 8-11 live in the agent's folder, 3-7 in shared/.
        for row in ContextRow::ALL {
            let owner = row.session_file().map(SessionFile::owner);
            match row.number() {
                1 | 2 => assert_eq!(owner, None),
                3..=7 => assert_eq!(owner, Some(Owner::Shared)),
                _ => assert_eq!(owner, Some(Owner::Panelist)),
            }
        }
    }

    #[test]
    fn rows_for_moderator_and_panelist() {
        assert_eq!(ContextRow::rows_for(&agent("skeptic")).count(), 11);
        let m: Vec<_> = ContextRow::rows_for(&agent(MODERATOR)).collect();
        assert_eq!(m, ContextRow::ALL[..7].to_vec());
    }

    #[test]
    fn file_refs_check_ownership() {
        let skeptic = agent("skeptic");
        let moderator = agent(MODERATOR);
        assert!(FileRef::shared(SessionFile::DeckContent).is_ok());
        assert!(FileRef::shared(SessionFile::FocusBrief).is_err());
        assert!(FileRef::agent(&skeptic, SessionFile::DeckContent).is_err());
        assert!(FileRef::agent(&skeptic, SessionFile::FocusBrief).is_ok());
        assert!(FileRef::agent(&skeptic, SessionFile::SessionState).is_err());
        assert!(FileRef::agent(&moderator, SessionFile::SessionState).is_ok());
        assert!(FileRef::agent(&moderator, SessionFile::FocusBrief).is_err());
        let r = FileRef::agent(&skeptic, SessionFile::CandidateQuestion).unwrap();
        assert_eq!(r.relative_path(), "skeptic/candidate-question.md");
    }

    #[test]
    fn paths() {
        let l = Layout::new("/a");
        let id = SessionId::new("s1").unwrap();
        let f = FileRef::shared(SessionFile::PresenterTranscript).unwrap();
        assert_eq!(
            l.file_path(&id, &f),
            PathBuf::from("/a/sessions/s1/shared/presenter-transcript.md")
        );
        assert_eq!(
            l.ledger_path(&id, &f),
            PathBuf::from("/a/sessions/s1/.ledger/shared/presenter-transcript.md.json")
        );
        assert_eq!(
            l.display_path(&id, &f),
            "sessions/s1/shared/presenter-transcript.md"
        );
        assert_eq!(
            l.blueprint_dir(Owner::Panelist),
            PathBuf::from("/a/session-templates/panelist")
        );
        assert_eq!(
            l.persona_path(&agent("analyst")),
            PathBuf::from("/a/templates/analyst/persona.md")
        );
        assert_eq!(
            SessionFile::lookup(Owner::Panelist, "focus-brief.md"),
            Some(SessionFile::FocusBrief)
        );
        assert_eq!(SessionFile::lookup(Owner::Shared, "focus-brief.md"), None);
    }
}
