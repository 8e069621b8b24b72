//! `console`: a live page in the browser. Dora inputs → [`console_core`] → WebSocket
//! broadcast; page messages → [`console_core`] → the `control`, `human_text` and `audio`
//! outputs. The HTTP/WebSocket server (axum) runs on its own thread; this loop never
//! waits for a page: each page has a bounded queue, and a frame that does not fit is
//! dropped and counted.
//!
//! Env: `CONSOLE_ADDR` (127.0.0.1), `CONSOLE_PORT` (8777), `CONSOLE_TOKEN` (required
//! for a non-loopback address), `CONSOLE_QUEUE` (frames per page, 512), `HUMAN_SPEAKER`
//! (human). See docs/ARCHITECTURE.md.

use std::{
    net::{IpAddr, Ipv4Addr},
    time::{Duration, Instant},
};

use console_core::{Config, Console, Data, DoraOutput, Meta, PageOutput};
use console_node::{PageEvent, Pages, server};
use crossbeam_channel::select;
use dora_node_api::{
    DoraNode, Event as DoraEvent, MetadataParameters,
    arrow_v59::{array::AsArray, datatypes::Float32Type},
};
use eyre::{Context, eyre};
use node_kit::DoraMeta;
use voice_protocol::messages::{Audio, Meta as _, Plain, Transcript};
use voice_protocol::{ids, keys};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let ip: IpAddr = match node_kit::env_opt("CONSOLE_ADDR") {
        None => IpAddr::V4(Ipv4Addr::LOCALHOST),
        Some(a) if a.trim().eq_ignore_ascii_case("localhost") => IpAddr::V4(Ipv4Addr::LOCALHOST),
        Some(a) => a
            .trim()
            .parse()
            .map_err(|e| eyre!("CONSOLE_ADDR={a:?} is not an IP address: {e}"))?,
    };
    let port: u16 = node_kit::env_parse("CONSOLE_PORT", 8777)?;
    let token = node_kit::env_opt("CONSOLE_TOKEN").map(|t| t.trim().to_owned());
    console_core::auth::bind_allowed(ip, token.as_deref()).map_err(|e| eyre!("{e}"))?;
    let queue: usize = node_kit::env_parse("CONSOLE_QUEUE", 512)?;
    if queue == 0 {
        return Err(eyre!("CONSOLE_QUEUE must be at least 1"));
    }
    let config = Config {
        human_speaker: node_kit::env_opt("HUMAN_SPEAKER").unwrap_or_else(|| "human".to_owned()),
        ..Config::default()
    };

    // A taken port costs the page, never the conversation: the node stays in the
    // dataflow (its outputs are optional inputs elsewhere) and says why there is no page.
    let listener = match std::net::TcpListener::bind((ip, port)) {
        Ok(listener) => Some(listener),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            tracing::error!(
                "the console cannot listen on {ip}:{port}: the port is taken (another console or program); the conversation runs without a page; set CONSOLE_PORT to a free port"
            );
            None
        }
        Err(e) => return Err(eyre!("the console cannot listen on {ip}:{port}: {e}")),
    };

    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let dora_events = node_kit::forward_events(events);
    let (page_tx, page_rx) = crossbeam_channel::unbounded::<PageEvent>();
    // Held for the whole run, so that without a server the page channel stays quiet.
    let _page_tx = page_tx.clone();
    if let Some(listener) = listener {
        listener
            .set_nonblocking(true)
            .context("cannot make the listening socket non-blocking")?;
        let bound = listener.local_addr()?;
        let host = match ip {
            IpAddr::V6(_) => format!("[{}]", bound.ip()),
            IpAddr::V4(_) => bound.ip().to_string(),
        };
        let url = format!("http://{host}:{}/", bound.port());
        if token.is_some() {
            println!("console: {url}?token=<CONSOLE_TOKEN>");
        } else {
            println!("console: {url}");
        }
        tracing::info!(%url, token = token.is_some(), "console listening");
        server::spawn(
            listener,
            server::Settings {
                token,
                loopback_only: ip.is_loopback(),
            },
            page_tx,
            queue,
        )?;
    }

    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let mut console = Console::new(config);
    let mut pages = Pages::default();
    let tick = crossbeam_channel::tick(Duration::from_secs(1));
    loop {
        let outs = select! {
            recv(dora_events) -> event => match event {
                Ok(DoraEvent::Input { id, metadata, data }) => {
                    let meta = to_meta(&metadata.parameters);
                    let text;
                    let array = data.as_array();
                    let data = if let Some(samples) = array.as_primitive_opt::<Float32Type>() {
                        Data::Samples(samples.values())
                    } else {
                        match node_kit::text_of(&data) {
                            Ok(t) => {
                                text = t;
                                Data::Text(&text)
                            }
                            Err(e) => {
                                tracing::warn!(input = %id, error = %e, "unreadable input ignored");
                                Data::Other
                            }
                        }
                    };
                    console.input(id.as_str(), data, &meta, now())
                }
                Ok(DoraEvent::Stop(_)) | Err(_) => break,
                Ok(_) => continue,
            },
            recv(page_rx) -> event => match event {
                Ok(PageEvent::Connected { id, tx }) => {
                    pages.insert(id, tx);
                    tracing::info!(page = id, pages = pages.len(), "page connected");
                    console.connected(id)
                }
                Ok(PageEvent::Text { id, text }) => console.page_text(id, &text, now()),
                Ok(PageEvent::Binary { id, bytes }) => console.page_audio(id, &bytes, now()),
                Ok(PageEvent::Closed { id }) => {
                    pages.remove(id);
                    tracing::info!(page = id, pages = pages.len(), "page closed");
                    console.disconnected(id)
                }
                Err(_) => break,
            },
            recv(tick) -> _ => {
                console.set_transport(pages.transport());
                vec![PageOutput::Broadcast(console.stats_msg())]
            }
        };
        for out in outs {
            match out {
                PageOutput::Dora(out) => send(&mut node, out),
                PageOutput::Warning(warning) => tracing::warn!("{warning}"),
                page_out => pages.deliver(page_out),
            }
        }
    }
    let transport = pages.transport();
    tracing::info!(
        sent = transport.frames_sent,
        dropped = transport.frames_dropped,
        "console stopped"
    );
    Ok(())
}

/// Sends one output; a failure (e.g. an output the dataflow does not declare) is logged.
fn send(node: &mut DoraNode, out: DoraOutput) {
    let result = match out {
        DoraOutput::Control(command) => {
            tracing::info!(%command, "control from the page");
            node_kit::send_on(node, ids::CONTROL, Plain(command))
        }
        DoraOutput::HumanText { speaker, text } => {
            tracing::info!(%speaker, %text, "typed on the page");
            node_kit::send_on(
                node,
                ids::HUMAN_TEXT,
                Transcript::final_words(speaker, text),
            )
        }
        DoraOutput::Audio {
            sample_rate,
            samples,
        } => node_kit::send(node, Audio::new(sample_rate, samples)),
    };
    if let Err(e) = result {
        tracing::warn!(error = %e, "output not sent");
    }
}

fn to_meta(params: &MetadataParameters) -> Meta {
    // The console shows every message it is wired to, whatever it is: it reads the
    // keys any of them may carry.
    let meta = DoraMeta(params);
    let string = |k: &str| meta.text(k).map(str::to_owned);
    Meta {
        question_id: meta.question_id(),
        speaker: string(keys::SPEAKER),
        interrupted: meta.flag(keys::INTERRUPTED),
        is_human: meta.flag(keys::IS_HUMAN),
        session_status: string(keys::STREAM_STATUS),
        chars_played: meta.int(keys::CHARS_PLAYED),
        sample_rate: meta.int(keys::SAMPLE_RATE),
        kind: string(keys::LINE_KIND).or_else(|| string(keys::KIND)),
    }
}
