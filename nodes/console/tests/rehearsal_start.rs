//! The live rehearsal as a user starts it, twice: `scripts/start.sh
//! dataflows/rehearsal-live.yml --deck dataflows/rehearsal/deck.md` with the shipped
//! panel, models and voices, through dora's coordinator and daemon. The presenter is
//! headless Chromium on the page, its fake microphone saying the deck's first lines
//! (espeak-ng) for Whisper to hear; it presents two slides, hears the panel's question at
//! the section break, gives an answer that dodges it (typed), moves on and ends. The
//! second session's panel must ask first what the first left open, and its debrief, in
//! the page, compares the two. Screenshots and the session folders are kept in
//! `target/rehearsal-start-test/`.
//!
//! Ignored: it takes the shipped models several minutes. Run it with
//! `cargo test --release -p console-node --test rehearsal_start -- --ignored --nocapture`
//! (no other dora coordinator running: it runs `dora up` and `dora down`).

use std::{
    os::unix::process::CommandExt,
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

mod common;

use common::{
    free_port,
    live::{self, click, js, lines},
};
use fantoccini::{Client, Locator};
use serde_json::Value;

/// What the panel's real models get to answer one line.
const WAIT: Duration = Duration::from_secs(300);

/// The presenter's opening, as the fake microphone says it in a loop.
const SAID: [(&str, f64); 3] = [
    (
        "Good morning. We are Acme Robotics, and we build picking robots for mid-size warehouses.",
        2.5,
    ),
    (
        "Manual picking is more than half of the labour cost in a warehouse, and staff turnover runs above forty percent.",
        2.5,
    ),
    ("Peak season hiring is slow and expensive.", 4.0),
];

/// An answer that takes up nothing the panel asked: the challenge stays open.
const DODGE: &str = "We will come back to that later; let me show you the market first.";

/// `scripts/start.sh` in a process group of its own, stopped as Ctrl-C stops it (the
/// whole group gets SIGINT: `dora start --attach` stops the dataflow, the script's trap
/// runs `dora down`).
struct Started(Child);

impl Started {
    fn run(args: &[&str], env: &[(&str, String)], log: &Path) -> Self {
        let root = live::repo_root();
        let mut start = Command::new("bash");
        live::outside_cargo_test(&mut start);
        start
            .current_dir(&root)
            .arg("scripts/start.sh")
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(log).unwrap())
            .stderr(Stdio::from(
                std::fs::File::options().append(true).open(log).unwrap(),
            ))
            .process_group(0);
        Self(start.spawn().expect("scripts/start.sh starts"))
    }

    fn signal(&self, signal: &str) {
        let _ = Command::new("kill")
            .args([signal, "--", &format!("-{}", self.0.id())])
            .status();
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        self.signal("-INT");
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(120) {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        self.signal("-KILL");
        let _ = self.0.wait();
        let _ = Command::new(live::repo_root().join(".venv/bin/dora"))
            .arg("down")
            .status();
    }
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "the shipped models, several minutes; run with --ignored"]
async fn the_shipped_deck_rehearsed_twice_through_start_sh() {
    let Some((chromium, chromedriver)) = live::browser_programs() else {
        return;
    };
    let out = live::out_dir("rehearsal-start-test");
    let wav = out.join("fake-mic-presenter.wav");
    assert!(
        live::spoken_wav(&SAID, &wav),
        "espeak-ng makes the fake microphone's WAV"
    );
    // A presenter history of this run only: the first session meets the panel fresh.
    let history = out.join("presenters");
    let _ = std::fs::remove_dir_all(&history);
    let mut asked_first = Vec::new();
    for run in 1..=2 {
        let session = out.join(format!("session-{run}"));
        let _ = std::fs::remove_dir_all(&session);
        let port = free_port();
        let started = Started::run(
            &[
                "dataflows/rehearsal-live.yml",
                "--deck",
                "dataflows/rehearsal/deck.md",
            ],
            &[
                ("CONSOLE_PORT", port.to_string()),
                ("SESSION_DIR", session.display().to_string()),
                ("PRESENTER_HISTORY_DIR", history.display().to_string()),
            ],
            &out.join(format!("start-{run}.log")),
        );
        let serving = Instant::now();
        while !live::healthy(port) {
            assert!(
                serving.elapsed() < Duration::from_secs(1800),
                "the console did not serve; see {}",
                out.display()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
        let (_driver, client) = live::browser(&chromium, &chromedriver, Some(&wav)).await;
        let result = rehearse(&client, port, &out, run).await;
        let _ = client.close().await;
        drop(started);
        match result {
            Ok(question) => asked_first.push(question),
            Err(e) => panic!("session {run}: {e}\n(logs in {})", out.display()),
        }
        let debrief = std::fs::read_to_string(session.join("debrief.md")).expect("debrief.md");
        eprintln!("--- debrief of session {run} ---\n{debrief}");
        if run == 1 {
            let open = sessions(&history)
                .last()
                .map(open_questions)
                .unwrap_or_default();
            assert!(
                !open.is_empty(),
                "the dodged question is not left open in the presenter's history"
            );
            eprintln!("left open: {open:?}");
            // The debrief says what the next panel will ask first.
            assert!(debrief.contains("## Left open for next time"), "{debrief}");
            assert!(
                open.iter().all(|q| debrief.contains(q.as_str())),
                "{debrief}"
            );
        } else {
            assert!(debrief.contains("## Since the last session"), "{debrief}");
        }
    }
    // The second panel's first question is one the first session left open, asked again.
    let open = sessions(&history)
        .first()
        .map(open_questions)
        .unwrap_or_default();
    let second = &asked_first[1];
    assert!(
        open.iter().any(|q| asks_again(q, second)),
        "the second session's first question {second:?} is none of those left open: {open:?}"
    );
}

fn open_questions(session: &Value) -> Vec<String> {
    session["open"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["question"].as_str().map(str::to_owned))
        .collect()
}

/// The sessions of the one presenter file in `history`.
fn sessions(history: &Path) -> Vec<Value> {
    let Ok(entries) = std::fs::read_dir(history) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter_map(|t| serde_json::from_str::<Value>(&t).ok())
        .flat_map(|h| h["sessions"].as_array().cloned().unwrap_or_default())
        .collect()
}

/// Whether `said` asks `question` again: most words of its first sentence (the panelist
/// asks a question left open as its first sentence or two, and its voice may add a
/// lead-in).
fn asks_again(question: &str, said: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 3)
            .map(str::to_lowercase)
            .collect()
    };
    let first = question
        .split_inclusive(['?', '.'])
        .next()
        .unwrap_or(question);
    let asked = words(first);
    let heard = words(said);
    let shared = asked.iter().filter(|w| heard.contains(w)).count();
    !asked.is_empty() && shared * 2 >= asked.len()
}

async fn wait_for<T>(what: &str, check: impl AsyncFnMut() -> Option<T>) -> Result<T, String> {
    live::wait_for(what, WAIT, check).await
}

async fn title(client: &Client) -> String {
    js(
        client,
        "return document.getElementById('rh-title').textContent",
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_owned()
}

/// The panelists' lines the player reported heard, in order (the moderator's aside).
async fn panel_heard(client: &Client) -> Vec<String> {
    js(
        client,
        "return [...document.querySelectorAll('#transcript .line')].filter(l => l.dataset.kind === 'agent' && l.dataset.speaker !== 'moderator' && l.querySelector('.played')).map(l => l.querySelector('.text').textContent)",
    )
    .await
    .as_array()
    .map(|a| {
        a.iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    })
    .unwrap_or_default()
}

/// How many presenter lines the recognizer heard.
async fn presenter_lines(client: &Client) -> usize {
    lines(client)
        .await
        .iter()
        .filter(|l| l["kind"] == "human" && l["speaker"] == "presenter")
        .count()
}

/// One session from the page; returns the panel's first question heard.
async fn rehearse(client: &Client, port: u16, out: &Path, run: usize) -> Result<String, String> {
    let shot = |name: &str| format!("start-{run}-{name}");
    client
        .goto(&format!("http://127.0.0.1:{port}/"))
        .await
        .map_err(|e| format!("open the page: {e}"))?;
    wait_for("the board with the deck's title slide", async || {
        (title(client).await == "Acme Robotics").then_some(())
    })
    .await?;
    // The title slide, then "The Problem", each presented through the microphone.
    for slide in ["Acme Robotics", "The Problem"] {
        let before = presenter_lines(client).await;
        click(client, "#btn-openmic").await?;
        wait_for("a presenter line from the microphone", async || {
            (presenter_lines(client).await > before).then_some(())
        })
        .await?;
        click(client, "#btn-openmic").await?;
        live::screenshot(client, out, &shot(&format!("presenting-{slide}"))).await;
        click(client, "#rh-next").await?;
    }
    // The section break after "The Problem": the moderator hands over, a panelist asks.
    let question = wait_for("the panel's question, heard", async || {
        panel_heard(client).await.into_iter().next()
    })
    .await?;
    eprintln!("session {run}: the panel asked first: {question}");
    live::screenshot(client, out, &shot("question")).await;
    client
        .find(Locator::Css("#say-text"))
        .await
        .map_err(|e| e.to_string())?
        .send_keys(DODGE)
        .await
        .map_err(|e| e.to_string())?;
    click(client, "#say-send").await?;
    click(client, "#rh-moveon").await?;
    wait_for("the exchange closed", async || {
        let phase = js(
            client,
            "return document.getElementById('rehearsal').dataset.phase",
        )
        .await;
        (phase == "presenting").then_some(())
    })
    .await?;
    click(client, "#rh-end").await?;
    let debrief = wait_for("the debrief in the page", async || {
        js(
            client,
            "const d = document.getElementById('rh-debrief'); return d.hidden ? null : d.textContent",
        )
        .await
        .as_str()
        .map(str::to_owned)
    })
    .await?;
    if run == 2 && !debrief.contains("Since the last session") {
        return Err(format!("the second debrief shown: {debrief}"));
    }
    live::screenshot(client, out, &shot("debrief")).await;
    Ok(question)
}
