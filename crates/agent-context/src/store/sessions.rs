//! Sessions: listing them, creating one from the blueprints, its record.

use super::*;

impl ContextStore {
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

    pub(super) fn require_session(&self, id: &SessionId) -> Result<()> {
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

    pub(super) fn stage_session(
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
}
