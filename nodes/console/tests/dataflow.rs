//! The console inside a real `dora run` of dataflows/voice-chat.yml (scripted
//! participants, espeak voices, Whisper hearing the human), watched and joined from
//! headless Chromium: the transcript fills in, typing as the human interrupts and gets the
//! tutor's answer, and Chromium's fake microphone saying a sentence becomes a human line.
//!
//! It needs the workspace's binaries (scripts/setup.sh) and runs a whole conversation
//! (about half a minute). Skipped, with a message, only when chromium or chromedriver is
//! not installed. The bridges log every input at debug level: a failure here is read with
//! `RUST_LOG=info,llm_bridge=debug` in `target/console-test/dora-run.log`.

use std::time::Duration;

mod common;

use common::live::{self, LiveDataflow, click, js, lines};
use fantoccini::{Client, Locator};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(180);
const MIC_SENTENCE: &str = "Please explain the chain rule with a simple example.";

async fn wait_for<T>(what: &str, check: impl AsyncFnMut() -> Option<T>) -> Result<T, String> {
    live::wait_for(what, WAIT, check).await
}

#[tokio::test(flavor = "current_thread")]
async fn voice_chat_watched_and_joined_from_the_browser() {
    let Some((chromium, chromedriver)) = live::browser_programs() else {
        return;
    };
    let out = live::out_dir("console-test");
    let wav = out.join("fake-mic-chain-rule.wav");
    assert!(
        live::spoken_wav(&[(MIC_SENTENCE, 3.0)], &wav),
        "espeak-ng makes the fake microphone's WAV"
    );
    let session = std::env::temp_dir().join(format!("console-dataflow-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&session);
    let dataflow = LiveDataflow::start(
        "voice-chat.yml",
        &[
            "conference-controller",
            "llm-bridge",
            "text-segmenter",
            "tts-player",
            "scripted-human",
            "asr-bridge",
            "session-recorder",
        ],
        &[
            ("LLM_BACKEND", "scripted".to_owned()),
            ("SESSION_DIR", session.display().to_string()),
            ("OFFLINE_WORD_DELAY_MS", "30".to_owned()),
            ("ESPEAK_SPEED", "260".to_owned()),
        ],
        &out,
    );
    let (_driver, client) = live::browser(&chromium, &chromedriver, Some(&wav)).await;
    let result = drive(&client, dataflow.port).await;
    live::screenshot(&client, &out, "console-dataflow").await;
    let _ = client.close().await;
    drop(dataflow);
    if let Err(e) = result {
        panic!("{e}\n(logs in {})", out.display());
    }
}

async fn drive(client: &Client, port: u16) -> Result<(), String> {
    client
        .goto(&format!("http://127.0.0.1:{port}/"))
        .await
        .map_err(|e| format!("open the page: {e}"))?;
    // Agents speak; their lines appear with speakers, a student first (cold start).
    let first = wait_for("three agent lines", async || {
        let agents: Vec<Value> = lines(client)
            .await
            .into_iter()
            .filter(|l| l["kind"] == "agent")
            .collect();
        (agents.len() >= 3).then_some(agents)
    })
    .await?;
    let speaker0 = first[0]["speaker"].as_str().unwrap_or_default().to_owned();
    if !speaker0.starts_with("student") {
        return Err(format!("the first line is not a student's: {first:?}"));
    }
    // The share bars: one per participant of the pattern, shares of ratio words sum to 1.
    wait_for("share bars", async || {
        let v = js(
            client,
            "return [...document.querySelectorAll('#bars .bar')].map(b => [b.dataset.name, parseFloat(b.dataset.share), b.dataset.target])",
        )
        .await;
        let bars = v.as_array()?.clone();
        let names: Vec<&str> = bars.iter().filter_map(|b| b[0].as_str()).collect();
        let sum: f64 = bars.iter().filter_map(|b| b[1].as_f64()).sum();
        (names == ["human", "tutor", "student1", "student2"] && (sum - 1.0).abs() < 1e-6).then_some(())
    })
    .await?;

    // Typing as the human: an interrupt, the human's line, and the tutor answers.
    let typed = "Can you give me an example with a parabola?";
    client
        .find(Locator::Css("#say-text"))
        .await
        .map_err(|e| e.to_string())?
        .send_keys(typed)
        .await
        .map_err(|e| e.to_string())?;
    click(client, "#say-send").await?;
    wait_for(
        "the interrupt, the typed line and the tutor's answer",
        async || {
            let all = lines(client).await;
            let h = all
                .iter()
                .position(|l| l["kind"] == "human" && l["text"] == typed)?;
            let interrupt = all[..h]
                .iter()
                .rev()
                .take(4)
                .any(|l| l["kind"] == "interrupt")
                || all[h..].iter().take(3).any(|l| l["kind"] == "interrupt");
            let answer = all[h + 1..].iter().find(|l| l["kind"] == "agent")?;
            (interrupt && answer["speaker"] == "tutor").then_some(())
        },
    )
    .await?;

    // The browser's microphone: the fake device says the sentence; Whisper hears it.
    click(client, "#btn-openmic").await?;
    let heard = wait_for("a human line from the microphone", async || {
        lines(client).await.into_iter().find(|l| {
            let t = l["text"].as_str().unwrap_or_default().to_lowercase();
            l["kind"] == "human" && (t.contains("chain") || t.contains("rule"))
        })
    })
    .await?;
    click(client, "#btn-openmic").await?;
    eprintln!("heard from the browser microphone: {heard}");
    // The latency table has figures.
    let rows = js(
        client,
        "return document.querySelectorAll('#latency tbody tr').length",
    )
    .await;
    if rows.as_u64().unwrap_or(0) == 0 {
        return Err("no latency rows".to_owned());
    }
    Ok(())
}
