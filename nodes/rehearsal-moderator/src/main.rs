//! `rehearsal-moderator`: the pitch-rehearsal moderator. Arrow in → [`rehearsal_core`]
//! (decisions) and [`agent_context`] (the agents' session context) → Arrow out.
//!
//! Inputs: `presenter` (final presenter transcripts), `control` (`slide N`, `open_qa`,
//! `end`, ...), one text stream per panelist (input id = the panelist's name), `reply*`
//! (answers to candidate-question requests), optional `playback_done`,
//! `playback_started` (from the player) and `speech_started` (presenter voice activity).
//! Outputs: `turn`, `text`, `request`, `utterance`, `interrupt`, `phase`,
//! `presenter_text`. See docs/ARCHITECTURE.md.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agent_context::{AgentName, AssemblyCaps, ContextStore, FileRef, SessionFile, SessionId};
use dora_node_api::{DoraNode, Event as DoraEvent, MetadataParameters};
use eyre::{Context, bail, eyre};
use node_kit::{Next, Params, next_event, session_status, text_of};
use rehearsal_core::{
    Action, CandidatePurpose, Deck, Event, PanelConfig, Phase, PhraseKind, PhraseLibrary,
    Rehearsal, briefing,
};
use serde_json::json;
use voice_protocol::{InterruptKind, SessionStatus, ids, keys, shorten};

use rehearsal_core::messages::{self, Control, parse_control};

/// The moderator's speaker name (its template folder and voice-map key).
const MODERATOR: &str = "moderator";

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let setup = Setup::from_env()?;
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    let folder = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let wired = node
        .node_config()
        .inputs
        .keys()
        .any(|id| id.as_str() == ids::PLAYBACK_DONE);
    let wait_for_playback = node_kit::env_parse("WAIT_FOR_PLAYBACK", wired)?;
    let start = Instant::now();
    let mut m = Moderator::new(setup, &folder, wait_for_playback)?;
    tracing::info!(
        folder = %folder.display(),
        context = %m.context_dir.display(),
        agents = ?m.core.config().agents.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
        slides = m.core.deck().len(),
        wait_for_playback,
        "rehearsal moderator ready"
    );
    let mut out = Out::default();
    m.feed(Event::Tick, 0, &mut out);
    out.flush(&mut node)?;
    let line_timeout = Duration::from_millis(m.core.config().thresholds.line_timeout_ms);
    // Once the session has ended: the closing line and since when we wait for it.
    let mut closing: Option<(Option<u64>, Instant)> = None;
    loop {
        if m.core.phase() == Phase::Ended {
            // The moderator leaves once its closing line has been heard (or after the
            // panel's line timeout): every other node then sees its inputs close and the
            // dataflow ends by itself.
            let (line, since) =
                *closing.get_or_insert_with(|| (m.lines.keys().max().copied(), Instant::now()));
            if line.is_none_or(|q| !m.lines.contains_key(&q)) {
                tracing::info!("the session is over and its closing line was heard");
                break;
            }
            if since.elapsed() >= line_timeout {
                tracing::warn!("the closing line was not reported as played in time; leaving");
                break;
            }
        }
        let wait = match closing {
            Some((_, since)) => Some(line_timeout.saturating_sub(since.elapsed())),
            None => m
                .core
                .next_deadline()
                .map(|d| Duration::from_millis(d).saturating_sub(start.elapsed())),
        }
        .map(|w| w.max(Duration::from_millis(2)));
        let now = || start.elapsed().as_millis() as u64;
        match next_event(&mut events, wait) {
            Next::Closed => break,
            Next::Timeout if closing.is_some() => {}
            Next::Timeout => m.feed(Event::Tick, now(), &mut out),
            Next::Event(event) => match *event {
                DoraEvent::Input { id, metadata, data } => {
                    m.input(id.as_str(), &metadata.parameters, &data, now(), &mut out)
                }
                DoraEvent::InputClosed { id } => tracing::debug!(input = %id, "input closed"),
                DoraEvent::Stop(_) => break,
                DoraEvent::Error(e) => tracing::warn!(error = %e, "dora reported an error"),
                _ => {}
            },
        }
        out.flush(&mut node)?;
    }
    if m.core.phase() != Phase::Ended {
        tracing::info!("dataflow stopping: ending the session");
        m.feed(
            Event::EndSession,
            start.elapsed().as_millis() as u64,
            &mut out,
        );
        // The outputs may no longer be delivered; the files are what matters now.
        if let Err(e) = out.flush(&mut node) {
            tracing::debug!(error = %e, "outputs after stop not sent");
        }
    }
    m.finish_files();
    Ok(())
}

/// Everything read from the environment and the files at start.
struct Setup {
    config: PanelConfig,
    deck: Deck,
    deck_path: String,
    deck_text: String,
    phrases: PhraseLibrary,
    store_root: PathBuf,
    /// Research notes for `external-intel.md` (`INTEL`, a Markdown file), if any.
    intel: Option<String>,
}

impl Setup {
    fn from_env() -> eyre::Result<Self> {
        let panel_path = node_kit::env_opt("PANEL")
            .ok_or_else(|| eyre!("PANEL is not set (the panel configuration, YAML)"))?;
        let panel = std::fs::read_to_string(&panel_path)
            .with_context(|| format!("cannot read PANEL file {panel_path:?}"))?;
        let config =
            PanelConfig::from_yaml(&panel).map_err(|e| eyre!("PANEL {panel_path}: {e}"))?;
        let deck_path = node_kit::env_opt("DECK")
            .ok_or_else(|| eyre!("DECK is not set (the slide deck, Markdown)"))?;
        let deck_text = std::fs::read_to_string(&deck_path)
            .with_context(|| format!("cannot read DECK file {deck_path:?}"))?;
        let deck = Deck::parse(&deck_text);
        if deck.is_empty() {
            bail!("DECK {deck_path}: no slides (one `## Title` heading per slide)");
        }
        let root = node_kit::env_opt("AGENTS_ROOT").ok_or_else(|| {
            eyre!("AGENTS_ROOT is not set (the folder holding templates/ and session-templates/)")
        })?;
        let store_root = PathBuf::from(&root);
        let store = ContextStore::open(&store_root)
            .map_err(|e| eyre!("agent templates in AGENTS_ROOT {root}: {e}"))?;
        for agent in &config.agents {
            let known = AgentName::new(agent.name.as_str())
                .ok()
                .is_some_and(|a| store.template(&a).is_some());
            if !known {
                bail!(
                    "panel agent `{}` has no template: expected {root}/templates/{}/persona.md",
                    agent.name,
                    agent.name
                );
            }
        }
        let moderator = AgentName::new(MODERATOR).expect("valid name");
        let Some(template) = store.template(&moderator) else {
            bail!("no moderator template: expected {root}/templates/{MODERATOR}/persona.md");
        };
        let (library_text, source) = match node_kit::env_opt("PHRASES") {
            Some(path) => (
                std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read PHRASES file {path:?}"))?,
                path,
            ),
            None => match template.documents.get("phrase-library.md") {
                Some(text) => (
                    text.clone(),
                    format!("{root}/templates/{MODERATOR}/phrase-library.md"),
                ),
                None => {
                    tracing::warn!(
                        "no phrase library (PHRASES or the moderator template's phrase-library.md); using the built-in phrases"
                    );
                    (String::new(), "built-in".to_owned())
                }
            },
        };
        let phrases = if library_text.is_empty() {
            PhraseLibrary::builtin()
        } else {
            let (library, warnings) = PhraseLibrary::parse(&library_text);
            for w in warnings {
                tracing::warn!(file = %source, "phrase library: {w}");
            }
            library
        };
        let intel = match node_kit::env_opt("INTEL") {
            Some(path) => Some(
                std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read INTEL file {path:?}"))?,
            ),
            None => None,
        };
        Ok(Self {
            config,
            deck,
            deck_path,
            deck_text,
            phrases,
            store_root,
            intel,
        })
    }
}

/// Outputs gathered while handling one event, sent together.
#[derive(Default)]
struct Out(Vec<(&'static str, MetadataParameters, String)>);

impl Out {
    fn push(&mut self, id: &'static str, params: Params, text: impl Into<String>) {
        self.0.push((id, params.build(), text.into()));
    }

    /// The `utterance` record of a line: what the bridges and the recorder hear.
    fn utterance(&mut self, question_id: u64, speaker: &str, human: bool, text: &str) {
        self.push(
            ids::UTTERANCE,
            Params::new()
                .question_id(question_id)
                .string(keys::SPEAKER, speaker.to_owned())
                .bool(keys::INTERRUPTED, false)
                .bool(keys::IS_HUMAN, human),
            text,
        );
    }

    fn flush(&mut self, node: &mut DoraNode) -> eyre::Result<()> {
        for (id, params, text) in self.0.drain(..) {
            node.send_output(id.into(), params, text)?;
        }
        Ok(())
    }
}

/// A call handed to a panelist, by wire question id.
struct Call {
    agent: String,
    core_qid: u64,
    text: String,
}

/// A candidate-question request in flight.
struct Request {
    agents: Vec<String>,
    slide: usize,
    purpose: CandidatePurpose,
}

struct Moderator {
    core: Rehearsal,
    store: ContextStore,
    sid: SessionId,
    context_dir: PathBuf,
    folder: PathBuf,
    wait_for_playback: bool,
    next_qid: u64,
    /// Moderator lines by wire question id → the core's line id.
    lines: HashMap<u64, u64>,
    calls: BTreeMap<u64, Call>,
    requests: HashMap<String, Request>,
    next_request: u64,
    last_answer: Option<String>,
    /// The exchange under way, as text (for pile-on prompts).
    exchange_text: Vec<String>,
    /// The slide the exchange under way is about.
    exchange_slide: Option<usize>,
    /// While a slide change is handled: the slide left (a section break is about it).
    break_slide: Option<usize>,
    /// Trigger time of a Q&A-opening control, until its transition line is out.
    trigger: Option<(Instant, String)>,
    /// Transition lines waiting to be heard: wire question id → trigger time, command.
    awaiting_audio: HashMap<u64, (Instant, String)>,
    events: Option<File>,
    frozen: bool,
    debrief_written: bool,
}

impl Moderator {
    fn new(setup: Setup, folder: &Path, wait_for_playback: bool) -> eyre::Result<Self> {
        let Setup {
            config,
            deck,
            deck_path,
            deck_text,
            phrases,
            store_root,
            intel,
        } = setup;
        // Templates stay read-only under AGENTS_ROOT; the session goes into the run's folder.
        let store = ContextStore::open_with_sessions_dir(&store_root, folder)
            .map_err(|e| eyre!("agent templates: {e}"))?;
        // Folders for this panel and its chair only, not for every template.
        let members: Vec<AgentName> = config
            .agents
            .iter()
            .map(|a| a.name.as_str())
            .chain([MODERATOR])
            .filter_map(|a| AgentName::new(a).ok())
            .collect();
        let prefix = SessionId::new("context").expect("a valid id");
        let sid = store
            .create_next_session(&prefix, &members, node_kit::unix_ms())
            .map_err(|e| eyre!("cannot create the context session: {e}"))?;
        let context_dir = store.layout().session_dir(&sid);
        let shared = |f| FileRef::shared(f).expect("a shared file");
        store
            .write(
                &sid,
                &shared(SessionFile::SessionConfig),
                &briefing::session_config_markdown(&config, &deck, &deck_path),
            )
            .map_err(|e| eyre!("{e}"))?;
        store
            .write(&sid, &shared(SessionFile::DeckContent), &deck_text)
            .map_err(|e| eyre!("{e}"))?;
        store
            .write(
                &sid,
                &shared(SessionFile::ExternalIntel),
                &briefing::external_intel_markdown(&deck, &config, intel.as_deref()),
            )
            .map_err(|e| eyre!("{e}"))?;
        let styles = config
            .agents
            .iter()
            .filter_map(|a| {
                let name = AgentName::new(a.name.as_str()).ok()?;
                Some((a.name.clone(), store.template(&name)?.persona.style.clone()))
            })
            .collect();
        store
            .write(
                &sid,
                &shared(SessionFile::BoardDossier),
                &briefing::board_dossier_markdown(&config, &styles),
            )
            .map_err(|e| eyre!("{e}"))?;
        for agent in members.iter().filter(|a| a.as_str() != MODERATOR) {
            let brief = briefing::focus_brief_markdown(&config, &deck, agent.as_str());
            let file = FileRef::agent(agent, SessionFile::FocusBrief).map_err(|e| eyre!("{e}"))?;
            store.write(&sid, &file, &brief).map_err(|e| eyre!("{e}"))?;
        }
        let core = Rehearsal::new(config, deck, phrases).map_err(|e| eyre!("PANEL: {e}"))?;
        let events = OpenOptions::new()
            .create(true)
            .append(true)
            .open(folder.join("rehearsal-events.jsonl"))
            .map_err(|e| tracing::warn!(error = %e, "cannot open rehearsal-events.jsonl"))
            .ok();
        Ok(Self {
            core,
            store,
            sid,
            context_dir,
            folder: folder.to_owned(),
            wait_for_playback,
            next_qid: 1,
            lines: HashMap::new(),
            calls: BTreeMap::new(),
            requests: HashMap::new(),
            next_request: 1,
            last_answer: None,
            exchange_text: Vec::new(),
            exchange_slide: None,
            break_slide: None,
            trigger: None,
            awaiting_audio: HashMap::new(),
            events,
            frozen: false,
            debrief_written: false,
        })
    }

    fn fresh_qid(&mut self) -> u64 {
        let q = self.next_qid;
        self.next_qid += 1;
        q
    }

    fn log_event(&mut self, now_ms: u64, event: &str, fields: serde_json::Value) {
        let Some(file) = self.events.as_mut() else {
            return;
        };
        let mut record = json!({ "t_ms": now_ms, "unix_ms": node_kit::unix_ms(), "event": event });
        if let (Some(obj), serde_json::Value::Object(extra)) = (record.as_object_mut(), fields) {
            obj.extend(extra);
        }
        let _ = writeln!(file, "{record}").and_then(|_| file.flush());
    }

    /// Writes a session file; failures are logged (the rehearsal goes on).
    fn write_file(&self, file: FileRef, text: &str, append: bool) {
        if self.frozen {
            return;
        }
        let result = if append {
            self.store.append(&self.sid, &file, text)
        } else {
            self.store.write(&self.sid, &file, text)
        };
        if let Err(e) = result {
            tracing::warn!(error = %e, "context session file not written");
        }
    }

    fn agent_file(&self, agent: &str, file: SessionFile) -> Option<FileRef> {
        let name = AgentName::new(agent).ok()?;
        FileRef::agent(&name, file).ok()
    }

    fn shared_file(file: SessionFile) -> FileRef {
        FileRef::shared(file).expect("a shared file")
    }

    // ----- inputs -------------------------------------------------------------------

    fn input(
        &mut self,
        id: &str,
        params: &MetadataParameters,
        data: &dora_node_api::DoraArray,
        now: u64,
        out: &mut Out,
    ) {
        let status = match session_status(params) {
            Ok(status) => status,
            Err(raw) => {
                tracing::warn!(input = id, value = %raw, "unknown session_status; treating the message as complete");
                None
            }
        };
        let text = match text_of(data) {
            Ok(text) => text,
            Err(e) if id == ids::SPEECH_STARTED || id == ids::PLAYBACK_STARTED => {
                tracing::debug!(input = id, error = %e, "payload ignored");
                String::new()
            }
            Err(e) if status.is_some() && self.core.config().agent_index(id).is_some() => {
                tracing::warn!(input = id, error = %e, "unreadable text; keeping only its session_status");
                String::new()
            }
            Err(e) => {
                tracing::warn!(input = id, error = %e, "unreadable input ignored");
                return;
            }
        };
        let qid = node_kit::question_id(params);
        match id {
            ids::PRESENTER => {
                if !SessionStatus::ends_utterance(status) {
                    tracing::debug!(text = %shorten(&text), "partial presenter transcript ignored");
                    return;
                }
                if text.trim().is_empty() {
                    tracing::debug!("empty presenter transcript ignored");
                    return;
                }
                let speaker = node_kit::string_param(params, keys::SPEAKER)
                    .unwrap_or("presenter")
                    .to_owned();
                self.presenter_said(speaker, text, now, out);
            }
            ids::CONTROL => match parse_control(&text) {
                Ok(control) => self.control(control, &text, now, out),
                Err(e) => tracing::warn!("control input ignored: {e}"),
            },
            ids::SPEECH_STARTED => self.feed(Event::PresenterSpeechStarted, now, out),
            ids::PLAYBACK_DONE => {
                let Some(q) = qid else {
                    tracing::warn!("playback_done without question_id ignored");
                    return;
                };
                if let Some(line_id) = self.lines.remove(&q)
                    && self.wait_for_playback
                {
                    self.feed(Event::ModeratorLineFinished { line_id }, now, out);
                }
            }
            ids::PLAYBACK_STARTED => {
                let Some(q) = qid else {
                    tracing::warn!("playback_started without question_id ignored");
                    return;
                };
                if let Some((at, command)) = self.awaiting_audio.remove(&q) {
                    let latency = at.elapsed().as_secs_f64() * 1000.0;
                    tracing::info!(%command, latency_ms = format!("{latency:.1}"), "Q&A trigger → first moderator audio");
                    self.log_event(
                        now,
                        "qa_first_audio",
                        json!({ "command": command, "question_id": q, "latency_ms": latency }),
                    );
                }
            }
            _ if id.starts_with(ids::REPLY) => self.reply(id, params, text, now, out),
            _ if self.core.config().agent_index(id).is_some() => {
                self.agent_text(id, qid, text, status, params, now, out)
            }
            other => tracing::warn!(input = other, "unknown input ignored"),
        }
    }

    fn presenter_said(&mut self, speaker: String, text: String, now: u64, out: &mut Out) {
        let text = text.trim().to_owned();
        self.write_file(
            Self::shared_file(SessionFile::PresenterTranscript),
            &format!("[{}] {text}\n", messages::clock(now)),
            true,
        );
        if self.core.phase() == Phase::Ended {
            return;
        }
        let q = self.fresh_qid();
        out.utterance(q, &speaker, true, &text);
        out.push(
            ids::PRESENTER_TEXT,
            Params::new()
                .question_id(q)
                .string(keys::SPEAKER, speaker)
                .string(keys::SESSION_STATUS, SessionStatus::Ended.as_str()),
            text.clone(),
        );
        if self.core.phase() != Phase::Presenting {
            self.last_answer = Some(text.clone());
            self.exchange_text.push(format!("presenter: {text}"));
        }
        self.feed(
            Event::PresenterSpeech {
                text,
                start_ms: now,
                end_ms: now,
            },
            now,
            out,
        );
    }

    fn control(&mut self, control: Control, raw: &str, now: u64, out: &mut Out) {
        tracing::info!(command = %raw.trim(), "control");
        self.log_event(now, "control", json!({ "command": raw.trim() }));
        let slide = self.core.current_slide();
        let event = match control {
            Control::Slide(index) => Event::SlideChanged { index },
            Control::Next => Event::SlideChanged { index: slide + 1 },
            Control::Prev => Event::SlideChanged {
                index: slide.saturating_sub(1),
            },
            Control::OpenQa => Event::OpenQaRequested,
            Control::Hand { agent, urgency } => Event::HandRaised { agent, urgency },
            Control::Ack(agent) => Event::PresenterAcknowledged { agent },
            Control::Answered => Event::PresenterAnswerFinished {
                text: String::new(),
            },
            Control::End => Event::EndSession,
        };
        self.trigger = Some((Instant::now(), raw.trim().to_owned()));
        self.break_slide = matches!(event, Event::SlideChanged { .. }).then_some(slide);
        self.feed(event, now, out);
        self.trigger = None;
        self.break_slide = None;
    }

    fn reply(
        &mut self,
        id: &str,
        params: &MetadataParameters,
        text: String,
        now: u64,
        out: &mut Out,
    ) {
        let agent = node_kit::string_param(params, keys::SPEAKER)
            .map(str::to_owned)
            .or_else(|| {
                id.strip_prefix(ids::REPLY)
                    .map(|s| s.trim_start_matches(['_', '-', '/']).to_owned())
                    .filter(|s| !s.is_empty())
            });
        let Some(agent) = agent else {
            tracing::warn!(input = id, "reply without speaker ignored");
            return;
        };
        let Some(request_id) = node_kit::string_param(params, keys::REQUEST_ID) else {
            tracing::warn!(input = id, "reply without request_id ignored");
            return;
        };
        let Some(request) = self.requests.get(request_id) else {
            tracing::debug!(request = request_id, "reply to an unknown request ignored");
            return;
        };
        if !request.agents.contains(&agent) {
            return;
        }
        if let Some(error) = node_kit::string_param(params, keys::ERROR) {
            tracing::debug!(%agent, request = request_id, %error, "candidate question not prepared");
            return;
        }
        let text = text.trim().to_owned();
        if text.is_empty() {
            tracing::debug!(%agent, "empty candidate question ignored");
            return;
        }
        let (slide, purpose) = (request.slide, request.purpose);
        let relevance = messages::relevance(&text, self.core.deck().slide(slide));
        if let Some(file) = self.agent_file(&agent, SessionFile::CandidateQuestion) {
            let title = messages::slide_label(self.core.deck(), slide);
            self.write_file(
                file,
                &format!(
                    "# Candidate question\n\n- slide {slide} ({title}), {purpose:?}, relevance {relevance:.2}, at {}\n\n{text}\n",
                    messages::clock(now)
                ),
                false,
            );
        }
        self.log_event(
            now,
            "candidate",
            json!({ "agent": agent, "slide": slide, "relevance": relevance, "text": text }),
        );
        if relevance < self.core.config().thresholds.min_candidate_relevance {
            // Not worth asking: the panelist will be called on the slide itself.
            tracing::debug!(%agent, relevance, "candidate question off the slide; not offered");
            return;
        }
        self.feed(
            Event::CandidateReady {
                agent,
                text,
                relevance,
            },
            now,
            out,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn agent_text(
        &mut self,
        agent: &str,
        qid: Option<u64>,
        text: String,
        status: Option<SessionStatus>,
        params: &MetadataParameters,
        now: u64,
        out: &mut Out,
    ) {
        let Some(q) = qid else {
            tracing::warn!(input = agent, "text without question_id ignored");
            return;
        };
        let Some(call) = self.calls.get_mut(&q) else {
            tracing::debug!(
                input = agent,
                question_id = q,
                "text of no current call ignored"
            );
            return;
        };
        if call.agent != agent {
            tracing::warn!(input = agent, question_id = q, expected = %call.agent, "text from the wrong panelist ignored");
            return;
        }
        call.text.push_str(&text);
        if !SessionStatus::ends_utterance(status) {
            return;
        }
        let call = self.calls.remove(&q).expect("present");
        if let Some(error) = node_kit::string_param(params, keys::ERROR) {
            tracing::warn!(%agent, question_id = q, %error, "panelist turn failed");
        }
        let spoken = call.text.trim().to_owned();
        out.utterance(q, agent, false, &spoken);
        if let Some(file) = self.agent_file(agent, SessionFile::ExchangeNotes) {
            self.write_file(
                file,
                &format!("- [{}] I asked: {spoken}\n", messages::clock(now)),
                true,
            );
        }
        self.exchange_text.push(format!("{agent}: {spoken}"));
        self.feed(
            Event::AgentTurnFinished {
                agent: agent.to_owned(),
                question_id: call.core_qid,
                text: spoken,
            },
            now,
            out,
        );
    }

    // ----- the core and its actions ---------------------------------------------------

    /// Feeds the core and carries out its actions (lines count as finished at once when
    /// no player reports them).
    fn feed(&mut self, event: Event, now: u64, out: &mut Out) {
        let mut queue: VecDeque<Event> = VecDeque::from([event]);
        while let Some(event) = queue.pop_front() {
            for action in self.core.handle(event, now) {
                if let Some(next) = self.act(action, now, out) {
                    queue.push_back(next);
                }
            }
        }
        if self.core.phase() == Phase::Ended {
            self.finish_files();
        }
    }

    fn act(&mut self, action: Action, now: u64, out: &mut Out) -> Option<Event> {
        match action {
            Action::Say {
                line_id,
                kind,
                text,
            } => {
                let q = self.fresh_qid();
                tracing::info!(kind = kind.slug(), question_id = q, %text, "moderator says");
                out.push(
                    ids::TEXT,
                    Params::new()
                        .question_id(q)
                        .string(keys::SPEAKER, MODERATOR)
                        .string(keys::SESSION_STATUS, SessionStatus::Ended.as_str())
                        .string(keys::LINE_KIND, kind.slug()),
                    text.clone(),
                );
                out.utterance(q, MODERATOR, false, &text);
                if kind == PhraseKind::Transition
                    && let Some((at, command)) = self.trigger.clone()
                {
                    self.log_event(
                        now,
                        "qa_line_out",
                        json!({ "command": command, "question_id": q,
                                "latency_ms": at.elapsed().as_secs_f64() * 1000.0 }),
                    );
                    self.awaiting_audio.insert(q, (at, command));
                }
                self.log_event(
                    now,
                    "say",
                    json!({ "kind": kind.slug(), "question_id": q, "line_id": line_id, "text": text }),
                );
                if self.wait_for_playback {
                    self.lines.insert(q, line_id);
                    None
                } else {
                    Some(Event::ModeratorLineFinished { line_id })
                }
            }
            Action::CallAgent {
                agent,
                question_id,
                exchange_id,
                instruction,
                candidate,
            } => {
                let q = self.fresh_qid();
                let slide = self.exchange_slide.unwrap_or(self.core.current_slide());
                let text = messages::instruction_text(
                    instruction,
                    candidate.as_deref(),
                    self.core.deck(),
                    slide,
                    self.last_answer.as_deref(),
                );
                let assembled = AgentName::new(agent.as_str()).ok().and_then(|a| {
                    self.store
                        .assemble(&self.sid, &a, AssemblyCaps::default())
                        .map_err(|e| tracing::warn!(%agent, error = %e, "context not assembled"))
                        .ok()
                });
                let parts: Vec<String> = assembled
                    .iter()
                    .flat_map(|c| c.parts.iter().map(|p| p.path.clone()))
                    .collect();
                let context = assembled.map(|c| c.prompt).unwrap_or_default();
                let context_bytes = context.len();
                tracing::info!(%agent, question_id = q, ?instruction, context_bytes = context.len(), "turn");
                let mut params = Params::new()
                    .question_id(q)
                    .string(keys::SPEAKER, agent.clone())
                    .string(keys::INSTRUCTION, text.clone())
                    .int(keys::EXCHANGE_ID, exchange_id as i64);
                if !context.is_empty() {
                    params = params.string(keys::CONTEXT, context);
                }
                out.push(ids::TURN, params, agent.clone());
                self.log_event(
                    now,
                    "call",
                    json!({ "agent": agent, "question_id": q, "exchange_id": exchange_id,
                            "instruction": instruction, "text": text,
                            "context_bytes": context_bytes, "context_parts": parts }),
                );
                self.calls.insert(
                    q,
                    Call {
                        agent,
                        core_qid: question_id,
                        text: String::new(),
                    },
                );
                None
            }
            Action::CancelAgent { agent, question_id } => {
                let wire: Vec<u64> = self
                    .calls
                    .iter()
                    .filter(|(_, c)| c.agent == agent && c.core_qid == question_id)
                    .map(|(q, _)| *q)
                    .collect();
                for q in wire {
                    self.calls.remove(&q);
                }
                let q = self.fresh_qid();
                tracing::info!(%agent, question_id = q, "panelist turn cancelled");
                out.push(
                    ids::INTERRUPT,
                    Params::new().question_id(q),
                    InterruptKind::Cancel.as_str(),
                );
                None
            }
            Action::RequestCandidates {
                agents,
                slide,
                purpose,
            } => {
                let id = format!("r-{}", self.next_request);
                self.next_request += 1;
                let exchange =
                    (purpose == CandidatePurpose::PileOn).then(|| self.exchange_text.join("\n"));
                let prompt =
                    messages::request_prompt(purpose, self.core.deck(), slide, exchange.as_deref());
                let kind = match purpose {
                    CandidatePurpose::Question => "candidate_question",
                    CandidatePurpose::PileOn => "pile_on",
                };
                let body = json!({ "id": id, "kind": kind, "prompt": prompt, "json": false, "max_words": 30 });
                out.push(ids::REQUEST, Params::new(), body.to_string());
                tracing::debug!(request = %id, ?agents, slide, kind, "candidate questions requested");
                // Forget old requests: their answers would be about an old slide.
                if self.requests.len() > 32 {
                    self.requests.clear();
                }
                self.requests.insert(
                    id,
                    Request {
                        agents,
                        slide,
                        purpose,
                    },
                );
                None
            }
            Action::PhaseChanged { from, to } => {
                let name = phase_name(to);
                tracing::info!(from = phase_name(from), to = name, "phase");
                out.push(ids::PHASE, Params::new(), name);
                self.log_event(
                    now,
                    "phase",
                    json!({ "from": phase_name(from), "to": name }),
                );
                if to == Phase::QaTrigger {
                    self.exchange_text.clear();
                    self.last_answer = None;
                    self.exchange_slide =
                        Some(self.break_slide.unwrap_or(self.core.current_slide()));
                }
                self.write_state(now);
                None
            }
            Action::LogExchange(record) => {
                tracing::info!(exchange = record.id, agent = %record.agent, outcome = messages::outcome_label(record.outcome), "exchange logged");
                self.write_file(
                    Self::shared_file(SessionFile::ExchangeHistory),
                    &messages::exchange_markdown(&record),
                    true,
                );
                let mut agents = vec![record.agent.clone()];
                if let Some(p) = &record.pile_on {
                    agents.push(p.agent.clone());
                }
                for agent in agents {
                    if let Some(file) = self.agent_file(&agent, SessionFile::PresenterProfile) {
                        self.write_file(file, &messages::profile_markdown(&record), true);
                    }
                    if let Some(file) = self.agent_file(&agent, SessionFile::ExchangeNotes) {
                        self.write_file(
                            file,
                            &format!(
                                "- exchange {} on {}: {}\n",
                                record.id,
                                record.slide_title,
                                messages::outcome_label(record.outcome)
                            ),
                            true,
                        );
                    }
                }
                if let Some(file) = self.agent_file(MODERATOR, SessionFile::DebriefNotes) {
                    self.write_file(
                        file,
                        &format!(
                            "- [{}] exchange {} ({}, slide {} {}): {}\n",
                            messages::clock(now),
                            record.id,
                            record.agent,
                            record.slide,
                            record.slide_title,
                            messages::outcome_label(record.outcome)
                        ),
                        true,
                    );
                }
                self.log_event(
                    now,
                    "exchange",
                    serde_json::to_value(&record).unwrap_or_default(),
                );
                None
            }
            Action::WriteDebrief { markdown } => {
                let path = self.folder.join("debrief.md");
                match std::fs::write(&path, &markdown) {
                    Ok(()) => tracing::info!(file = %path.display(), "debrief written"),
                    Err(e) => {
                        tracing::warn!(file = %path.display(), error = %e, "debrief not written")
                    }
                }
                if let Some(file) = self.agent_file(MODERATOR, SessionFile::DebriefNotes) {
                    self.write_file(file, &format!("\n{markdown}"), true);
                }
                self.debrief_written = true;
                self.log_event(now, "debrief", json!({ "file": "debrief.md" }));
                None
            }
            Action::Notice(notice) => {
                tracing::warn!("{notice}");
                None
            }
        }
    }

    fn write_state(&self, now: u64) {
        let core = &self.core;
        let slide = core.current_slide();
        let mut s = format!(
            "# Session state\n\nstate: {}\nslide: {slide} ({})\nelapsed: {}\nexchanges logged: {}\n",
            phase_name(core.phase()).to_uppercase(),
            core.deck().title_of(slide),
            messages::clock(now),
            core.records().len()
        );
        if let Some((agent, q)) = core.speaking() {
            s.push_str(&format!("speaking: {agent} (call {q})\n"));
        }
        if let Some(n) = core.exchange_agent_turns() {
            s.push_str(&format!(
                "exchange turns: {n} of {}\n",
                core.config().intensity.max_agent_turns()
            ));
        }
        let hands = core.hands_raised();
        if !hands.is_empty() {
            s.push_str(&format!("hands raised: {}\n", hands.join(", ")));
        }
        if let Some(moderator) = self.agent_file(MODERATOR, SessionFile::SessionState) {
            self.write_file(moderator, &s, false);
        }
    }

    /// At the end: the debrief (if the core has not written it) and the frozen context.
    fn finish_files(&mut self) {
        if self.frozen {
            return;
        }
        if !self.debrief_written {
            let markdown = self.core.debrief_markdown();
            let _ = std::fs::write(self.folder.join("debrief.md"), markdown);
            self.debrief_written = true;
        }
        match self.store.freeze(&self.sid, node_kit::unix_ms()) {
            Ok(manifest) => {
                tracing::info!(files = manifest.len(), folder = %self.context_dir.display(), "context session frozen")
            }
            Err(e) => tracing::warn!(error = %e, "context session not frozen"),
        }
        self.frozen = true;
    }
}

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Presenting => "presenting",
        Phase::QaTrigger => "qa_trigger",
        Phase::Exchange => "exchange",
        Phase::Resolving => "resolving",
        Phase::Ended => "ended",
    }
}
