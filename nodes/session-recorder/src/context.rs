//! The conversation's agent-context session: `context/` inside the session folder,
//! created from `session-templates/` for the agents named in `AGENTS` (templates under
//! `AGENTS_ROOT`, see [`crate::settings`]), filled as lines are heard, frozen with `MANIFEST.sha256` at the end.
//! Writing it is best effort: a failure is logged and the conversation goes on.

use std::path::Path;

use agent_context::{AgentName, ContextStore, FileRef, SessionFile, SessionId};
use eyre::eyre;

use crate::settings::Agents;
use session_log::TranscriptLine;

pub struct ContextSession {
    store: ContextStore,
    id: SessionId,
    agents: Vec<AgentName>,
}

impl ContextSession {
    /// The context session of `agents` in the session `folder`. A missing or malformed
    /// template is an error at start.
    pub fn open(folder: &Path, dataflow_id: &str, agents: Agents) -> eyre::Result<Self> {
        let Agents {
            names: agents,
            root,
        } = agents;
        let store = ContextStore::open_with_sessions_dir(&root, folder)
            .map_err(|e| eyre!("agent templates in AGENTS_ROOT {root}: {e}"))?;
        let prefix = SessionId::new("context").expect("a valid id");
        // The folder belongs to this run (see node_kit::session): a context session in it
        // that is not frozen yet was started by this recorder before a restart, and is
        // continued rather than split in two.
        let unfinished = store
            .sessions()
            .map_err(|e| eyre!("cannot list the context sessions: {e}"))?
            .into_iter()
            .filter(|id| {
                let name = id.to_string();
                name == prefix.to_string() || name.starts_with(&format!("{prefix}-"))
            })
            .rfind(|id| !store.is_frozen(id));
        if let Some(id) = unfinished {
            tracing::info!(session = %id, "continuing the context session (the recorder restarted)");
            return Ok(Self { store, id, agents });
        }
        let id = store
            .create_next_session(&prefix, &agents, node_kit::unix_ms())
            .map_err(|e| eyre!("cannot create the context session: {e}"))?;
        let session = Self { store, id, agents };
        let config = session.config_markdown(dataflow_id);
        session.write(&FileRef::shared(SessionFile::SessionConfig)?, &config);
        Ok(session)
    }

    fn config_markdown(&self, dataflow_id: &str) -> String {
        let mut s = format!("# Session config\n\n- dataflow: {dataflow_id}\n- participants:\n");
        for agent in &self.agents {
            match self.store.template(agent) {
                Some(t) => s.push_str(&format!(
                    "  - {} ({}, {}): {}\n",
                    t.persona.display_name, agent, t.persona.role, t.persona.style
                )),
                None => s.push_str(&format!("  - {agent}\n")),
            }
        }
        s.push_str("  - the human participants\n");
        s
    }

    fn write(&self, file: &FileRef, text: &str) {
        if let Err(e) = self.store.write(&self.id, file, text) {
            tracing::warn!(error = %e, "context session: write failed");
        }
    }

    fn append(&self, file: &FileRef, text: &str) {
        if let Err(e) = self.store.append(&self.id, file, text) {
            tracing::warn!(error = %e, "context session: append failed");
        }
    }

    /// One heard line: into the shared history, and the presenter transcript or the
    /// speaking agent's own notes.
    pub fn record(&self, line: &TranscriptLine) {
        let lines = line.context_lines();
        if let Ok(history) = FileRef::shared(SessionFile::ExchangeHistory) {
            self.append(&history, &lines.history);
        }
        if let Some(text) = lines.presenter
            && let Ok(file) = FileRef::shared(SessionFile::PresenterTranscript)
        {
            self.append(&file, &text);
        }
        if let Some((speaker, text)) = lines.own_notes
            && let Some(agent) = self.agents.iter().find(|a| a.as_str() == speaker)
            && let Ok(file) = FileRef::agent(agent, SessionFile::ExchangeNotes)
        {
            self.append(&file, &text);
        }
    }

    /// A restarted recorder's context catches up with the transcript already written:
    /// a line the recorder wrote to the transcript and was killed before it reached the
    /// context (the history counts one entry a line, the notes name each line's
    /// question, the presenter transcript one entry a human line). Nothing to do in a
    /// fresh session.
    pub fn catch_up(&self, transcript: &[TranscriptLine]) {
        let read = |file: Result<FileRef, _>| -> String {
            file.ok()
                .and_then(|f| self.store.read(&self.id, &f).ok().flatten())
                .unwrap_or_default()
        };
        let history = read(FileRef::shared(SessionFile::ExchangeHistory));
        let in_history = history.lines().filter(|l| l.starts_with("- [")).count();
        let presenter = read(FileRef::shared(SessionFile::PresenterTranscript));
        let in_presenter = presenter.lines().filter(|l| !l.trim().is_empty()).count();
        let mut humans_seen = 0;
        for (i, line) in transcript.iter().enumerate() {
            let lines = line.context_lines();
            if i >= in_history
                && let Ok(file) = FileRef::shared(SessionFile::ExchangeHistory)
            {
                self.append(&file, &lines.history);
            }
            if line.human {
                humans_seen += 1;
                if humans_seen > in_presenter
                    && let Some(text) = lines.presenter
                    && let Ok(file) = FileRef::shared(SessionFile::PresenterTranscript)
                {
                    self.append(&file, &text);
                }
            } else if let Some((speaker, text)) = lines.own_notes
                && let Some(agent) = self.agents.iter().find(|a| a.as_str() == speaker)
                && let Ok(file) = FileRef::agent(agent, SessionFile::ExchangeNotes)
                && !read(Ok(file.clone())).contains(&format!("(q{})", line.question_id))
            {
                self.append(&file, &text);
            }
        }
    }

    /// Freezes the session into a read-only archive with checksums.
    pub fn freeze(&self) {
        match self.store.freeze(&self.id, node_kit::unix_ms()) {
            Ok(_) => tracing::info!(session = %self.id, "context session frozen"),
            Err(e) => tracing::warn!(error = %e, "context session: freeze failed"),
        }
    }
}
