//! The node's files: the agents' context session (through [`agent_context`]), the
//! event log and the debrief. What goes into them is decided by the conductor; a failed
//! write is logged and the rehearsal goes on.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use agent_context::{AgentName, AssemblyCaps, ContextStore, FileRef, SessionFile, SessionId};
use eyre::eyre;
use rehearsal_core::rehearsal::{AgentFile, ContextFile, MODERATOR, Record, SharedFile, WriteMode};

pub struct SessionFiles {
    store: ContextStore,
    session: SessionId,
    /// The live context session (`<folder>/context`).
    pub context_dir: PathBuf,
    folder: PathBuf,
    events: Option<File>,
    /// The presenter's history, this session added at the debrief.
    pub memory: Option<crate::memory::Memory>,
}

impl SessionFiles {
    /// A fresh context session in the run's `folder` for `agents` and the moderator;
    /// templates stay read-only under `store_root`.
    pub fn create(store_root: &Path, folder: &Path, agents: &[&str]) -> eyre::Result<Self> {
        let store = ContextStore::open_with_sessions_dir(store_root, folder)
            .map_err(|e| eyre!("agent templates: {e}"))?;
        // Folders for this panel and its chair only, not for every template.
        let members: Vec<AgentName> = agents
            .iter()
            .copied()
            .chain([MODERATOR])
            .filter_map(|a| AgentName::new(a).ok())
            .collect();
        let prefix = SessionId::new("context").expect("a valid id");
        let session = store
            .create_next_session(&prefix, &members, node_kit::unix_ms())
            .map_err(|e| eyre!("cannot create the context session: {e}"))?;
        let context_dir = store.layout().session_dir(&session);
        let events = OpenOptions::new()
            .create(true)
            .append(true)
            .open(folder.join("rehearsal-events.jsonl"))
            .map_err(|e| tracing::warn!(error = %e, "cannot open rehearsal-events.jsonl"))
            .ok();
        Ok(Self {
            store,
            session,
            context_dir,
            folder: folder.to_owned(),
            events,
            memory: None,
        })
    }

    /// Each agent's persona style, from its template.
    pub fn styles(&self, agents: &[&str]) -> BTreeMap<String, String> {
        agents
            .iter()
            .filter_map(|a| {
                let name = AgentName::new(*a).ok()?;
                Some((
                    (*a).to_owned(),
                    self.store.template(&name)?.persona.style.clone(),
                ))
            })
            .collect()
    }

    pub fn write(&self, file: &ContextFile, text: &str, mode: WriteMode) {
        let Some(file) = file_ref(file) else {
            tracing::debug!(?file, "no such context file; not written");
            return;
        };
        let result = match mode {
            WriteMode::Append => self.store.append(&self.session, &file, text),
            WriteMode::Overwrite => self.store.write(&self.session, &file, text),
        };
        if let Err(e) = result {
            tracing::warn!(error = %e, "context session file not written");
        }
    }

    /// The agent's assembled context and the files it was made of (empty if it could
    /// not be assembled).
    pub fn assemble(&self, agent: &str) -> (String, Vec<String>) {
        let assembled = AgentName::new(agent).ok().and_then(|a| {
            self.store
                .assemble(&self.session, &a, AssemblyCaps::default())
                .map_err(|e| tracing::warn!(%agent, error = %e, "context not assembled"))
                .ok()
        });
        match assembled {
            Some(c) => (c.prompt, c.parts.into_iter().map(|p| p.path).collect()),
            None => (String::new(), Vec::new()),
        }
    }

    pub fn record(&mut self, record: &Record) {
        if let Some(file) = self.events.as_mut() {
            let line = record.to_json(node_kit::unix_ms());
            let _ = writeln!(file, "{line}").and_then(|_| file.flush());
        }
    }

    pub fn debrief(
        &mut self,
        markdown: &str,
        figures: &str,
        remembered: rehearsal_core::history::PastSession,
    ) {
        for (name, text) in [("debrief.md", markdown), ("debrief.json", figures)] {
            let path = self.folder.join(name);
            match std::fs::write(&path, text) {
                Ok(()) => tracing::info!(file = %path.display(), "debrief written"),
                Err(e) => tracing::warn!(file = %path.display(), error = %e, "debrief not written"),
            }
        }
        let session = self
            .folder
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        if let Some(memory) = &mut self.memory {
            memory.remember(rehearsal_core::history::PastSession {
                session,
                ended_unix_ms: node_kit::unix_ms(),
                ..remembered
            });
        }
    }

    pub fn freeze(&self) {
        match self.store.freeze(&self.session, node_kit::unix_ms()) {
            Ok(manifest) => {
                tracing::info!(files = manifest.len(), folder = %self.context_dir.display(), "context session frozen")
            }
            Err(e) => tracing::warn!(error = %e, "context session not frozen"),
        }
    }
}

fn file_ref(file: &ContextFile) -> Option<FileRef> {
    match file {
        ContextFile::Shared(shared) => FileRef::shared(match shared {
            SharedFile::SessionConfig => SessionFile::SessionConfig,
            SharedFile::DeckContent => SessionFile::DeckContent,
            SharedFile::ExternalIntel => SessionFile::ExternalIntel,
            SharedFile::BoardDossier => SessionFile::BoardDossier,
            SharedFile::PresenterTranscript => SessionFile::PresenterTranscript,
            SharedFile::ExchangeHistory => SessionFile::ExchangeHistory,
        })
        .ok(),
        ContextFile::Agent { agent, file } => {
            let name = AgentName::new(agent.as_str()).ok()?;
            let file = match file {
                AgentFile::FocusBrief => SessionFile::FocusBrief,
                AgentFile::ExchangeNotes => SessionFile::ExchangeNotes,
                AgentFile::CandidateQuestion => SessionFile::CandidateQuestion,
                AgentFile::PresenterProfile => SessionFile::PresenterProfile,
                AgentFile::DebriefNotes => SessionFile::DebriefNotes,
                AgentFile::SessionState => SessionFile::SessionState,
            };
            FileRef::agent(&name, file).ok()
        }
    }
}
