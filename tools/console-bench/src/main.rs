//! Benchmarks of the console node (not tests; figures in docs/BENCHMARKS.md):
//!
//! - `console-bench throughput [SECONDS]`: the node's loop and server in process, pages
//!   as WebSocket clients that listen to the voices; a conversation's messages are fed as
//!   fast as the loop takes them, for 1, 4 and 16 pages. Prints what the loop handled and
//!   what the pages received per second, and what was dropped.
//! - `console-bench page URL SECONDS [--listen]`: one page without a browser (a WebSocket
//!   client that may ask for the voices), counting what it receives; run next to a
//!   dataflow to load its console like open pages do.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use console_core::{Config, Console, Data, Meta};
use console_node::{PageEvent, Pages, server};
use eyre::{Context, bail, eyre};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

/// The player's block: 20 ms at 22,050 Hz, espeak-ng's rate.
const BLOCK: usize = 441;
const SAMPLE_RATE: i64 = 22_050;
/// Blocks per second of a voice heard in real time.
const REAL_TIME_BLOCKS: f64 = 50.0;
/// Per-page queue, the node's default (`CONSOLE_QUEUE`).
const QUEUE: usize = 512;

fn main() -> eyre::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("throughput") => {
            let seconds = seconds(args.get(1).map(String::as_str).unwrap_or("5"))?;
            println!("flooded (the loop feeds as fast as it can):");
            for pages in [1, 4, 16] {
                throughput(pages, seconds, None)?;
            }
            println!("paced (voices at 100x real time):");
            for pages in [1, 16] {
                throughput(pages, seconds, Some(100.0))?;
            }
            Ok(())
        }
        Some("page") => {
            let url = args.get(1).ok_or_else(|| eyre!("page needs a ws:// URL"))?;
            let seconds = seconds(args.get(2).map(String::as_str).unwrap_or("60"))?;
            let listen = args.iter().any(|a| a == "--listen");
            page(url, seconds, listen)
        }
        _ => bail!(
            "usage: console-bench throughput [SECONDS] | console-bench page ws://HOST:PORT/ws SECONDS [--listen]"
        ),
    }
}

fn seconds(text: &str) -> eyre::Result<Duration> {
    let secs: f64 = text
        .parse()
        .map_err(|e| eyre!("{text:?} is not a number of seconds: {e}"))?;
    if !(secs > 0.0 && secs <= 86_400.0) {
        bail!("seconds must be in (0, 86400], got {secs}");
    }
    Ok(Duration::from_secs_f64(secs))
}

/// What the bench's pages received.
#[derive(Default)]
struct Received {
    messages: AtomicU64,
    bytes: AtomicU64,
}

/// `pace`: how many times real time the voice's blocks come; `None`: as fast as possible.
fn throughput(page_count: usize, run_for: Duration, pace: Option<f64>) -> eyre::Result<()> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    listener.set_nonblocking(true)?;
    let port = listener.local_addr()?.port();
    let (page_tx, page_rx) = crossbeam_channel::unbounded::<PageEvent>();
    server::spawn(
        listener,
        server::Settings {
            token: None,
            loopback_only: true,
        },
        page_tx,
        QUEUE,
    )?;
    let received = Arc::new(Received::default());
    let done = Arc::new(AtomicBool::new(false));
    let clients = {
        let (received, done) = (received.clone(), done.clone());
        let url = format!("ws://127.0.0.1:{port}/ws");
        std::thread::spawn(move || -> eyre::Result<()> {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async move {
                let mut tasks = Vec::new();
                for _ in 0..page_count {
                    let (socket, _) = tokio_tungstenite::connect_async(url.as_str())
                        .await
                        .context("a bench page connects")?;
                    let (received, done) = (received.clone(), done.clone());
                    tasks.push(tokio::spawn(read_page(socket, true, received, done)));
                }
                for task in tasks {
                    task.await??;
                }
                Ok(())
            })
        })
    };

    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let mut console = Console::new(Config::default());
    let mut pages = Pages::default();
    let mut listening = 0;
    // Every page connected and listening before the clock starts.
    while listening < page_count {
        let event = page_rx
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| eyre!("the bench pages did not connect within 10 s"))?;
        handle_page(event, &mut console, &mut pages, now(), &mut listening);
    }

    let samples: Vec<f32> = (0..BLOCK).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
    let audio_meta = Meta {
        question_id: Some(1),
        speaker: Some("tutor".into()),
        sample_rate: Some(SAMPLE_RATE),
        ..Meta::default()
    };
    let status = r#"{"mode":"ratio_priority","participants":["human","tutor","student1"],"weights":[{"name":"human","weight":0.001},{"name":"tutor","weight":"*"},{"name":"student1","weight":1.0}],"word_counts":{"human":3,"tutor":120,"student1":80},"cycle":3,"current_speaker":"tutor","last_speaker":"student1","question_id":1,"absent":[]}"#;
    let line = "The derivative measures how fast a function changes at a point, like the speedometer of a car.";
    let fed_at = Instant::now();
    let mut blocks = 0u64;
    let mut inputs = 0u64;
    let mut busy = Duration::ZERO;
    while fed_at.elapsed() < run_for {
        if let Some(pace) = pace {
            let due = Duration::from_secs_f64(blocks as f64 / (REAL_TIME_BLOCKS * pace));
            if let Some(wait) = due.checked_sub(fed_at.elapsed()) {
                std::thread::sleep(wait);
            }
        }
        while let Ok(event) = page_rx.try_recv() {
            handle_page(event, &mut console, &mut pages, now(), &mut listening);
        }
        let t = Instant::now();
        // A conversation's mix: the voice's blocks, and per utterance (2 s of voice) its
        // text, the turn and the controller's status.
        let mut outs = console.input("audio", Data::Samples(&samples), &audio_meta, now());
        blocks += 1;
        inputs += 1;
        if blocks.is_multiple_of(100) {
            let q = blocks / 100;
            let meta = Meta {
                question_id: Some(q),
                speaker: Some("tutor".into()),
                session_status: Some("ended".into()),
                ..Meta::default()
            };
            outs.extend(console.input("utterance", Data::Text(line), &meta, now()));
            outs.extend(console.input("turn", Data::Text("tutor"), &meta, now()));
            outs.extend(console.input("status", Data::Text(status), &Meta::default(), now()));
            inputs += 3;
        }
        for out in outs {
            pages.deliver(out);
        }
        busy += t.elapsed();
    }
    let fed_for = fed_at.elapsed();
    // Let the pages read what is queued, then close them.
    let queued = pages.transport().frames_sent;
    let drain = Instant::now();
    while received.messages.load(Ordering::Relaxed) < queued
        && drain.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let drained_for = fed_at.elapsed();
    let transport = pages.transport();
    done.store(true, Ordering::Relaxed);
    drop(pages);
    drop(page_rx);
    let _ = clients.join();

    let transport_sent = transport.frames_sent;
    let got = received.messages.load(Ordering::Relaxed);
    let bytes = received.bytes.load(Ordering::Relaxed);
    let per_sec = |n: f64| n / fed_for.as_secs_f64();
    let offered = transport_sent + transport.frames_dropped;
    println!(
        "{page_count:>2} listening page(s), {:.1} s: loop {:.0} inputs/s ({:.0}x a voice in real time, {:.2} µs per input), pages received {:.0} msgs/s in all ({:.0} per page, {:.1} MB/s), {} of {} frames dropped ({:.2} %)",
        fed_for.as_secs_f64(),
        per_sec(inputs as f64),
        per_sec(blocks as f64) / REAL_TIME_BLOCKS,
        busy.as_secs_f64() * 1e6 / inputs.max(1) as f64,
        got as f64 / drained_for.as_secs_f64(),
        got as f64 / drained_for.as_secs_f64() / page_count as f64,
        bytes as f64 / drained_for.as_secs_f64() / 1e6,
        offered - transport_sent,
        offered,
        (offered - transport_sent) as f64 * 100.0 / offered.max(1) as f64,
    );
    Ok(())
}

fn handle_page(
    event: PageEvent,
    console: &mut Console,
    pages: &mut Pages,
    now: u64,
    listening: &mut usize,
) {
    let outs = match event {
        PageEvent::Connected { id, tx } => {
            pages.insert(id, tx);
            console.connected(id)
        }
        PageEvent::Text { id, text } => {
            if text.contains("\"listen\"") {
                *listening += 1;
            }
            console.page_text(id, &text, now)
        }
        PageEvent::Binary { id, bytes } => console.page_audio(id, &bytes, now),
        PageEvent::Closed { id } => {
            pages.remove(id);
            console.disconnected(id)
        }
    };
    for out in outs {
        pages.deliver(out);
    }
    console.set_transport(pages.transport());
}

async fn read_page<S>(
    socket: tokio_tungstenite::WebSocketStream<S>,
    listen: bool,
    received: Arc<Received>,
    done: Arc<AtomicBool>,
) -> eyre::Result<()>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let (mut sink, mut stream) = socket.split();
    if listen {
        sink.send(Message::text(r#"{"type":"listen","on":true}"#))
            .await
            .context("asking for the voices")?;
    }
    while !done.load(Ordering::Relaxed) {
        let next = tokio::time::timeout(Duration::from_millis(200), stream.next()).await;
        match next {
            Err(_) => continue,
            Ok(None) | Ok(Some(Err(_))) => break,
            Ok(Some(Ok(message))) => {
                received.messages.fetch_add(1, Ordering::Relaxed);
                received
                    .bytes
                    .fetch_add(message.len() as u64, Ordering::Relaxed);
            }
        }
    }
    let _ = sink.close().await;
    Ok(())
}

fn page(url: &str, run_for: Duration, listen: bool) -> eyre::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let received = Arc::new(Received::default());
    let done = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    runtime.block_on(async {
        // The console may still be starting: try for a while.
        let socket = loop {
            match tokio_tungstenite::connect_async(url).await {
                Ok((socket, _)) => break socket,
                Err(e) if start.elapsed() > Duration::from_secs(120) => {
                    bail!("cannot reach the console at {url}: {e}")
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(250)).await,
            }
        };
        let reader = tokio::spawn(read_page(socket, listen, received.clone(), done.clone()));
        // Until the time is up or the console closes the page (its dataflow stopped).
        while !reader.is_finished() && start.elapsed() < run_for {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        done.store(true, Ordering::Relaxed);
        reader.await??;
        Ok(())
    })?;
    println!(
        "page ({}): {} messages, {:.1} MB in {:.0} s",
        if listen { "listening" } else { "watching" },
        received.messages.load(Ordering::Relaxed),
        received.bytes.load(Ordering::Relaxed) as f64 / 1e6,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
