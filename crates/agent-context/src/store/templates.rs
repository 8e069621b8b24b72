//! Loading the agent templates and the session blueprints, which are only ever read.

use super::*;

pub(super) fn load_templates(layout: &Layout) -> Result<BTreeMap<AgentName, AgentTemplate>> {
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

pub(super) fn load_agent(layout: &Layout, agent: &AgentName) -> Result<AgentTemplate> {
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

pub(super) fn load_blueprint(layout: &Layout, owner: Owner, required: bool) -> Result<Blueprint> {
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
