//! The bridge's settings from its environment: the backend (`host`, `local`, `openai`,
//! `scripted`) with its own settings, the conversation's, and the participant's persona,
//! directory and agenda.

use std::{sync::Arc, time::Duration};

use agent_bridge::Persona;
use crossbeam_channel::Receiver;
use eyre::{Context, bail, eyre};
use llm_bridge::{
    backend::{Backend, OpenAiBackend, OpenAiConfig, ScriptedBackend},
    host::HostBackend,
    local::LocalBackend,
};
use voice_protocol::messages::ModelCall;

/// The conversation as the bridge's core keeps it, besides the persona.
pub struct Conversation {
    /// `TOPIC`: what the conversation is about.
    pub topic: Option<String>,
    /// `HISTORY_LIMIT`: the lines kept (60).
    pub history: usize,
    /// `ANSWER_OPENERS`: an answer to a human opens with a word or two at once; `None`:
    /// unless the backend is the scripted stand-in, whose template text stays exact.
    pub openers: Option<bool>,
    /// `REQUEST_TIMEOUT_SECS`: how long a side request may take (20 s).
    pub request_timeout: Duration,
}

impl Conversation {
    pub fn from_env() -> eyre::Result<Self> {
        Ok(Self {
            topic: node_kit::env_opt("TOPIC"),
            history: node_kit::env_parse("HISTORY_LIMIT", 60usize)?,
            openers: node_kit::env_flag_opt("ANSWER_OPENERS")?,
            request_timeout: node_kit::env_secs("REQUEST_TIMEOUT_SECS", 20.0)?,
        })
    }
}

/// The participant's model, as `LLM_BACKEND` names it.
pub struct Backends {
    pub backend: Arc<dyn Backend>,
    /// The model host's client, when the backend is the host.
    pub host: Option<Arc<HostBackend>>,
    /// The host's calls, to send on `model` (never any for the other backends).
    pub calls: Receiver<ModelCall>,
    /// The deterministic template stand-in, for tests.
    pub scripted: bool,
    /// A model that keeps a cache reads each line as it is heard.
    pub reads_along: bool,
}

impl Backends {
    pub fn from_env(persona: &Persona, topic: Option<&str>) -> eyre::Result<Self> {
        let name = node_kit::env_opt("LLM_BACKEND").unwrap_or_else(|| "local".to_owned());
        let (mut host, mut calls) = (None, crossbeam_channel::never::<ModelCall>());
        let backend: Arc<dyn Backend> = match name.as_str() {
            "host" => {
                let silence = node_kit::env_secs("MODEL_HOST_SILENCE_SECS", 45.0)?;
                let (backend, rx) = HostBackend::new(persona.clone(), silence);
                let backend = Arc::new(backend);
                tracing::info!(participant = %persona.name, "using the machine's model host");
                (host, calls) = (Some(backend.clone()), rx);
                backend
            }
            "local" => {
                let config = llm_bridge::local::config_from_env()?;
                Arc::new(LocalBackend::load(config, persona.clone())?)
            }
            // The deterministic template filler: exact text for tests, no language model.
            "scripted" | "offline" => {
                let delay =
                    Duration::from_millis(node_kit::env_parse("OFFLINE_WORD_DELAY_MS", 90)?);
                tracing::info!(participant = %persona.name, "using the scripted stand-in model (template text, for tests)");
                Arc::new(ScriptedBackend::new(
                    persona.clone(),
                    topic.map(str::to_owned),
                    delay,
                ))
            }
            "openai" => {
                let config = openai_config()?;
                tracing::info!(participant = %persona.name, base_url = %config.service.redactor().redact(&config.service.base_url), model = %config.chat.model, key = config.service.api_key.is_some(), "using an OpenAI-compatible model service");
                Arc::new(OpenAiBackend::new(config, persona.clone())?)
            }
            other => {
                bail!(
                    "LLM_BACKEND={other:?} is not supported (use `host`, `local`, `openai` or `scripted`)"
                )
            }
        };
        Ok(Self {
            backend,
            host,
            calls,
            scripted: matches!(name.as_str(), "scripted" | "offline"),
            reads_along: matches!(name.as_str(), "host" | "local"),
        })
    }
}

/// The OpenAI-compatible backend's settings from env. The key itself is read from the
/// variable named by `LLM_API_KEY_ENV` and never logged.
pub fn openai_config() -> eyre::Result<OpenAiConfig> {
    let service = service_client::ServiceSettings::from_env("LLM", "model service");
    let model = service.model.clone().ok_or_else(|| {
        eyre!("LLM_BACKEND=openai needs LLM_MODEL (e.g. gpt-4o-mini, deepseek-chat)")
    })?;
    if service.api_key.is_none() {
        tracing::warn!(variable = %service.key_env, "no API key in the environment; sending requests without one (fine for local servers)");
    }
    let max_words = node_kit::env_parse("LLM_MAX_WORDS", 22)?;
    if max_words == 0 {
        bail!(
            "LLM_MAX_WORDS must be positive (a turn ends at the first sentence end after this many words)"
        );
    }
    let secs = node_kit::env_secs;
    Ok(OpenAiConfig {
        service,
        chat: agent_bridge::openai::ChatSettings {
            model,
            temperature: node_kit::env_parse("LLM_TEMPERATURE", 0.7)?,
            max_tokens: node_kit::env_parse("LLM_MAX_TOKENS", 256)?,
        },
        connect_timeout: secs("LLM_CONNECT_TIMEOUT_SECS", 5.0)?,
        limits: service_client::StreamLimits {
            first_token: secs("LLM_FIRST_TOKEN_TIMEOUT_SECS", 20.0)?,
            stall: secs("LLM_STALL_TIMEOUT_SECS", 20.0)?,
            max_retries: node_kit::env_parse("LLM_MAX_RETRIES", 2)?,
        },
        turn_timeout: secs("LLM_TURN_TIMEOUT_SECS", 120.0)?,
        max_words,
    })
}

/// The persona from `PERSONA`; the participant name is `PARTICIPANT_NAME`, else the
/// persona's name, else the node id.
pub fn load_persona(node_id: &str) -> eyre::Result<Persona> {
    let explicit = node_kit::env_opt("PARTICIPANT_NAME");
    let Some(path) = node_kit::env_opt("PERSONA") else {
        let name = explicit.unwrap_or_else(|| node_id.to_owned());
        tracing::warn!(participant = %name, "PERSONA is not set; using a generic persona");
        return Ok(Persona::fallback(&name));
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read persona file {path:?} (PERSONA)"))?;
    let persona = if path.ends_with(".md") {
        persona_from_template(&path, &text)?
    } else {
        Persona::from_toml(&text).map_err(|e| eyre!("{path}: {e}"))?
    };
    match explicit {
        Some(name) if name != persona.name => {
            bail!(
                "persona file {path:?} is for `{}`, but PARTICIPANT_NAME is `{name}`",
                persona.name
            )
        }
        None if persona.name != node_id => tracing::warn!(
            persona = %persona.name,
            node = node_id,
            "this node answers the turns of its persona's name, which differs from the node id"
        ),
        _ => {}
    }
    Ok(persona)
}

/// A `templates/<agent>/persona.md` (TOML front matter, the body is the system prompt);
/// the agent's name is its folder's.
fn persona_from_template(path: &str, text: &str) -> eyre::Result<Persona> {
    let folder = std::path::Path::new(path)
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .ok_or_else(|| eyre!("{path}: a persona template lives in templates/<agent>/persona.md"))?;
    let agent = agent_context::AgentName::new(folder).map_err(|e| eyre!("{path}: {e}"))?;
    let template =
        agent_context::PersonaTemplate::parse(text, &agent).map_err(|e| eyre!("{path}: {e}"))?;
    Persona::from_toml(&template.to_persona_toml()).map_err(|e| eyre!("{path}: {e}"))
}

/// Participants known by name and role: the persona templates beside this one
/// (`templates/<agent>/persona.md`). Without `PERSONA` (or unreadable neighbours), none:
/// the others are then called by their ids.
pub fn load_directory(me: &Persona) -> Vec<dialogue_planner::Participant> {
    let Some(path) = node_kit::env_opt("PERSONA") else {
        return Vec::new();
    };
    let Some(templates) = std::path::Path::new(&path)
        .parent()
        .and_then(|agent| agent.parent())
    else {
        return Vec::new();
    };
    let Ok(folders) = std::fs::read_dir(templates) else {
        return Vec::new();
    };
    let mut roster = Vec::new();
    for folder in folders.flatten() {
        let file = folder.path().join("persona.md");
        let Some(file) = file.to_str().map(str::to_owned) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        match persona_from_template(&file, &text) {
            Ok(persona) if persona.name != me.name => {
                roster.push(dialogue_planner::Participant::new(
                    &persona.name,
                    persona.spoken_name(),
                    &persona.role,
                ))
            }
            Ok(_) => {}
            Err(error) => tracing::debug!(file, %error, "not a persona template; skipped"),
        }
    }
    roster.sort_by(|a, b| a.id.cmp(&b.id));
    roster
}

/// The agenda from the file `AGENDA` names (topic, points); none without it.
pub fn load_agenda() -> eyre::Result<Option<dialogue_planner::Agenda>> {
    let Some(path) = node_kit::env_opt("AGENDA") else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read the agenda file {path:?} (AGENDA)"))?;
    let agenda = dialogue_planner::Agenda::parse(&text).map_err(|e| eyre!("{path}: {e}"))?;
    Ok(Some(agenda))
}
