//! The page's address: bound before the node starts, served on its own thread.

use std::net::{IpAddr, TcpListener};

use console_node::{PageEvent, server};
use crossbeam_channel::Sender;
use eyre::{Context, eyre};

use crate::settings::Settings;

/// Binds the console's address. A taken port costs the page, never the conversation:
/// the node stays in the dataflow (its outputs are optional inputs elsewhere) and says
/// why there is no page.
pub fn bind(settings: &Settings) -> eyre::Result<Option<TcpListener>> {
    let (ip, port) = (settings.ip, settings.port);
    match TcpListener::bind((ip, port)) {
        Ok(listener) => Ok(Some(listener)),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            tracing::error!(
                "the console cannot listen on {ip}:{port}: the port is taken (another console or program); the conversation runs without a page; set CONSOLE_PORT to a free port"
            );
            Ok(None)
        }
        Err(e) => Err(eyre!("the console cannot listen on {ip}:{port}: {e}")),
    }
}

/// Serves the pages on `listener`, their events to `pages`; prints the address.
pub fn serve(
    listener: TcpListener,
    settings: &Settings,
    pages: Sender<PageEvent>,
) -> eyre::Result<()> {
    listener
        .set_nonblocking(true)
        .context("cannot make the listening socket non-blocking")?;
    let bound = listener.local_addr()?;
    let host = match settings.ip {
        IpAddr::V6(_) => format!("[{}]", bound.ip()),
        IpAddr::V4(_) => bound.ip().to_string(),
    };
    let url = format!("http://{host}:{}/", bound.port());
    if settings.token.is_some() {
        println!("console: {url}?token=<CONSOLE_TOKEN>");
    } else {
        println!("console: {url}");
    }
    tracing::info!(%url, token = settings.token.is_some(), "console listening");
    server::spawn(
        listener,
        server::Settings {
            token: settings.token.clone(),
            loopback_only: settings.ip.is_loopback(),
        },
        pages,
        settings.queue,
    )
}
