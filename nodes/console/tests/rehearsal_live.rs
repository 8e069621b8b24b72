//! Rehearsing one's own pitch live: `dora run dataflows/rehearsal-live.yml` with a deck
//! and a hand-raise panel of the test's, the presenter in headless Chromium. The fake
//! microphone says the presenter's lines (espeak-ng) and Whisper hears them; from the page
//! the test changes slides, takes a panelist's raised hand, answers (typed), says
//! "answered", moves on and ends the session; the debrief appears in the page and in the
//! session folder, and the moderator's decision log replays to the same decisions. Then
//! the same deck is rehearsed again: the second panel is told what the first session left
//! open, and the second debrief, in the page too, compares the two. A screenshot of each
//! view of each session is kept in `target/rehearsal-live-test/`.
//!
//! It needs the workspace's binaries (scripts/setup.sh); scripted panelists and espeak
//! voices keep it to about a minute a session (`REHEARSAL_LIVE_MODELS=1`: the shipped models and
//! voices instead, to listen to `sessions`' recording). Skipped, with a message, only
//! when chromium or chromedriver is not installed.

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

mod common;

use common::live::{self, LiveDataflow, click, js, lines};
use fantoccini::{Client, Locator};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(180);

const DECK: &str = "# Acme Robotics\n\nPicking robots for mid-size warehouses.\n\n## The Problem\n\n- Manual picking is 55% of warehouse labour cost\n- Staff turnover runs above 40% a year\n\n## Market Size\n\n- The warehouse automation market is $40B\n- 120 operators surveyed; 70% plan to automate picking\n\n## The Ask\n\n- $3M seed round for 18 months of runway\n";

/// Hand-raise mode; the scripted panelists' questions share one word with the slide
/// (relevance 0.5), so hands go up above 0.4; answers end on "Answered" only. Each slide
/// has its planned time.
const PANEL: &str = "intensity: adversarial\nmode: hand_raise\nsession_duration_s: 900\nslide_minutes: [0.5, 1, 1, 1]\nthresholds:\n  hand_raise_urgency: 0.4\n  answer_end_silence_ms: 0\n  candidate_refresh_ms: 8000\n";

const SAID: [(&str, f64); 3] = [
    (
        "Good morning. We are Acme Robotics, and we build picking robots for warehouses.",
        2.5,
    ),
    (
        "Manual picking is more than half of the labour cost in a warehouse.",
        2.5,
    ),
    ("Our pilots cut the picking labour cost by half.", 4.0),
];

const ANSWER: &str = "Our six pilot sites measured the picking labour cost before and after.";

async fn wait_for<T>(what: &str, check: impl AsyncFnMut() -> Option<T>) -> Result<T, String> {
    live::wait_for(what, WAIT, check).await
}

async fn board(client: &Client) -> Value {
    js(
        client,
        "const h = [...document.querySelectorAll('#rh-hands li.hand')].map(l => l.dataset.agent); \
         return {shown: !document.getElementById('rehearsal').hidden, \
                 phase: document.getElementById('rehearsal').dataset.phase, \
                 title: document.getElementById('rh-title').textContent, \
                 points: [...document.querySelectorAll('#rh-points li')].map(l => l.textContent), \
                 exchange: document.getElementById('rh-exchange').textContent, \
                 turns: document.getElementById('rh-exchange').dataset.turns, \
                 hands: h, \
                 debrief: document.getElementById('rh-debrief').hidden ? null : document.getElementById('rh-debrief').textContent}",
    )
    .await
}

/// The panelists' lines heard (the player reported them) of `agent`.
async fn heard_lines(client: &Client, agent: &str) -> Vec<String> {
    let script = format!(
        "return [...document.querySelectorAll('#transcript .line')].filter(l => l.dataset.kind === 'agent' && l.dataset.speaker === '{agent}' && l.querySelector('.played')).map(l => l.querySelector('.text').textContent)"
    );
    js(client, &script)
        .await
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "current_thread")]
async fn a_presenter_rehearses_live_from_the_browser() {
    let Some((chromium, chromedriver)) = live::browser_programs() else {
        return;
    };
    let out = live::out_dir("rehearsal-live-test");
    let wav = out.join("fake-mic-presenter.wav");
    assert!(
        live::spoken_wav(&SAID, &wav),
        "espeak-ng makes the fake microphone's WAV"
    );
    let deck = out.join("my-pitch.md");
    let panel = out.join("my-panel.yml");
    std::fs::write(&deck, DECK).unwrap();
    std::fs::write(&panel, PANEL).unwrap();
    // The presenter's history of this test only: the second session is compared with the
    // first, whatever ran before.
    let history = out.join("presenters");
    let _ = std::fs::remove_dir_all(&history);
    let rig = Rig {
        chromium,
        chromedriver,
        wav,
        deck,
        panel,
        history,
        out,
    };
    for run in 1..=2 {
        let session = live_session(&rig, run).await;
        if run == 2 {
            // The second panel was told what the first session left open, and the debrief
            // compares the two (as the page showed it, checked in `rehearse`).
            let debrief = std::fs::read_to_string(session.join("debrief.md")).unwrap();
            assert!(debrief.contains("## Since the last session"), "{debrief}");
            assert!(
                grep(&session.join("context"), "Left open in the last session"),
                "no panelist's context holds what the last session left open"
            );
        }
    }
}

/// Whether a file under `dir` holds `text`.
fn grep(dir: &Path, text: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        if path.is_dir() {
            grep(&path, text)
        } else {
            std::fs::read_to_string(&path).is_ok_and(|t| t.contains(text))
        }
    })
}

/// What every session of the test runs with.
struct Rig {
    chromium: PathBuf,
    chromedriver: PathBuf,
    /// The fake microphone's sound.
    wav: PathBuf,
    deck: PathBuf,
    panel: PathBuf,
    /// The presenter's history, shared by the sessions.
    history: PathBuf,
    /// Where logs and screenshots are kept.
    out: PathBuf,
}

/// One session of the live rehearsal, run `run` of the test; returns its folder.
async fn live_session(rig: &Rig, run: usize) -> PathBuf {
    let Rig {
        chromium,
        chromedriver,
        wav,
        deck,
        panel,
        history,
        out,
    } = rig;
    let session = std::env::temp_dir().join(format!("rehearsal-live-{}-{run}", std::process::id()));
    let _ = std::fs::remove_dir_all(&session);
    let mut env = vec![
        ("DECK", deck.display().to_string()),
        ("PANEL", panel.display().to_string()),
        ("SESSION_DIR", session.display().to_string()),
        ("PRESENTER_HISTORY_DIR", history.display().to_string()),
    ];
    if std::env::var_os("REHEARSAL_LIVE_MODELS").is_none() {
        env.extend([
            ("LLM_BACKEND", "scripted".to_owned()),
            ("OFFLINE_WORD_DELAY_MS", "30".to_owned()),
            ("TTS_BACKEND", "espeak".to_owned()),
            ("ESPEAK_SPEED", "260".to_owned()),
        ]);
    }
    let dataflow = LiveDataflow::start(
        "rehearsal-live.yml",
        &[
            "rehearsal-moderator",
            "llm-bridge",
            "text-segmenter",
            "tts-player",
            "asr-bridge",
            "session-recorder",
        ],
        &env,
        out,
    );
    let (_driver, client) = live::browser(chromium, chromedriver, Some(wav)).await;
    let result = rehearse(&client, dataflow.port, out, run).await;
    eprintln!("session: {}", session.display());
    let _ = client.close().await;
    drop(dataflow);
    if let Err(e) = result {
        panic!("{e}\n(logs in {})", out.display());
    }
    // The session folder: the debrief as the page showed it, the commands in the
    // moderator's decision log, and a replay that decides the same.
    let debrief = std::fs::read_to_string(session.join("debrief.md")).expect("debrief.md");
    assert!(debrief.contains("# Rehearsal debrief"), "{debrief}");
    assert!(debrief.contains("raised hand"), "{debrief}");
    assert!(debrief.contains("presenter asked to move on"), "{debrief}");
    let decisions = std::fs::read_to_string(session.join("decisions/moderator.jsonl"))
        .expect("the moderator's decision log");
    for command in ["next", "ack ", "answered", "move_on", "end"] {
        assert!(
            decisions.contains(&format!("\"{command}")),
            "`{command}` is not in the decision log"
        );
    }
    let replay = Command::new(live::repo_root().join("target/release/replay"))
        .arg(&session)
        .output()
        .expect("replay runs");
    assert!(
        replay.status.success(),
        "the live session does not replay identically:\n{}",
        String::from_utf8_lossy(&replay.stdout)
    );
    session
}

async fn rehearse(client: &Client, port: u16, out: &Path, run: usize) -> Result<(), String> {
    let shot = |name: &str| format!("rehearsal-{run}-{name}");
    client
        .goto(&format!("http://127.0.0.1:{port}/"))
        .await
        .map_err(|e| format!("open the page: {e}"))?;
    // The deck's first slide on the board.
    wait_for("the board with the title slide", async || {
        let b = board(client).await;
        (b["shown"] == true && b["title"] == "Acme Robotics").then_some(())
    })
    .await?;
    // Speaking through the page's microphone: Whisper hears the presenter.
    click(client, "#btn-openmic").await?;
    let heard = wait_for("a presenter line from the microphone", async || {
        lines(client).await.into_iter().find(|l| {
            let t = l["text"].as_str().unwrap_or_default().to_lowercase();
            l["kind"] == "human"
                && l["speaker"] == "presenter"
                && ["robot", "picking", "warehouse", "labour", "labor"]
                    .iter()
                    .any(|w| t.contains(w))
        })
    })
    .await?;
    eprintln!("heard the presenter: {heard}");
    live::screenshot(client, out, &shot("1-presenting")).await;
    // The presenter stops talking (the fake device would say its sentence again and
    // again, and a presenter speaking over the panel holds and cuts its voice).
    click(client, "#btn-openmic").await?;

    // Next slide from the page.
    click(client, "#rh-next").await?;
    let b = wait_for("the next slide", async || {
        let b = board(client).await;
        (b["title"] == "The Problem").then_some(b)
    })
    .await?;
    if b["points"][0] != "Manual picking is 55% of warehouse labour cost" {
        return Err(format!("the slide's points: {b}"));
    }

    // A panelist raises a hand (hand-raise mode); the presenter takes the question.
    let agent = wait_for("a raised hand", async || {
        board(client).await["hands"][0].as_str().map(str::to_owned)
    })
    .await?;
    live::screenshot(client, out, &shot("2-hand-raised")).await;
    click(
        client,
        &format!("#rh-hands li.hand[data-agent='{agent}'] button.take"),
    )
    .await?;
    let question = wait_for("the panelist's question, heard", async || {
        heard_lines(client, &agent).await.into_iter().next()
    })
    .await?;
    eprintln!("{agent} asked: {question}");
    let b = board(client).await;
    if b["turns"] != "1" {
        return Err(format!("the exchange's turn count after the question: {b}"));
    }
    live::screenshot(client, out, &shot("3-exchange")).await;

    // The answer, typed on the page, then "Answered": the panelist follows up.
    client
        .find(Locator::Css("#say-text"))
        .await
        .map_err(|e| e.to_string())?
        .send_keys(ANSWER)
        .await
        .map_err(|e| e.to_string())?;
    click(client, "#say-send").await?;
    wait_for("the typed answer in the transcript", async || {
        lines(client)
            .await
            .into_iter()
            .find(|l| l["kind"] == "human" && l["text"] == ANSWER)
    })
    .await?;
    click(client, "#rh-answered").await?;
    wait_for("the follow-up question, heard", async || {
        let b = board(client).await;
        (b["turns"] == "2" && heard_lines(client, &agent).await.len() >= 2).then_some(())
    })
    .await?;

    // "Let's move on" closes the exchange; the presenter presents again.
    click(client, "#rh-moveon").await?;
    wait_for("the exchange closed", async || {
        let b = board(client).await;
        (b["phase"] == "presenting" && b["exchange"] == "no exchange under way").then_some(())
    })
    .await?;

    // End the session: the debrief in the page.
    click(client, "#rh-end").await?;
    let debrief = wait_for("the debrief in the page", async || {
        board(client).await["debrief"].as_str().map(str::to_owned)
    })
    .await?;
    if !debrief.contains("Rehearsal debrief")
        || !debrief.contains("asked to move on")
        || (run == 2 && !debrief.contains("Since the last session"))
    {
        return Err(format!("the debrief shown: {debrief}"));
    }
    // Its figures drawn beside it: the tiles, a bar per slide shown with the plan's mark
    // (the shipped panel plans every slide), the panel's verdicts.
    let dashboard = js(
        client,
        "const d = document.getElementById('rh-dashboard');          return {shown: !d.hidden,                  tiles: [...d.querySelectorAll('.tile')].map(t => t.dataset.figure),                  slides: d.querySelectorAll('.slide-row').length,                  plans: d.querySelectorAll('.slide-row .plan').length,                  verdicts: [...d.querySelectorAll('.verdict')].map(v => v.dataset.verdict)}",
    )
    .await;
    let tiles = dashboard["tiles"].to_string();
    let slides = dashboard["slides"].as_u64().unwrap_or(0);
    if dashboard["shown"] != true
        || !tiles.contains("pace")
        || !tiles.contains("fillers")
        || slides == 0
        || dashboard["plans"].as_u64() != Some(slides)
        || dashboard["verdicts"].as_array().map(Vec::len) != Some(4)
    {
        return Err(format!("the dashboard shown: {dashboard}"));
    }
    live::screenshot(client, out, &shot("4-debrief")).await;
    Ok(())
}
