//! Crash consistency below the page cache. This kernel has no device-mapper (so no dm
//! log-writes); the equivalent used here records the store's file operations at the
//! system-call level, as ALICE (OSDI 2014) does: `rrm mine` runs under `strace`, which
//! logs every open, write, sync, rename and unlink with its data. Replaying the log
//! builds the files a crash at any point would leave when the page cache is lost:
//! a file's bytes are durable once an `fsync`/`fdatasync` of it returned, a directory's
//! entries once the directory (or the file, as ext4 commits it) was synced, and
//! `sync_file_range` makes nothing durable. Images are taken at every sync point and
//! between them, with the durable state alone and with prefixes of the writes not yet
//! synced (what a disk that wrote some of them leaves). Each must open with every
//! acknowledged result (the `acknowledged` mark in the image), or refuse to open saying
//! why; none may open short.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One file operation of the store, in the order the calls completed.
#[derive(Debug, Clone)]
enum Op {
    /// `path` opened as `fd`; `create` and `truncate` as its flags said.
    Open {
        fd: i64,
        path: PathBuf,
        create: bool,
        truncate: bool,
    },
    Close(i64),
    /// Bytes written at `offset` (`None`: at the descriptor's position).
    Write {
        fd: i64,
        offset: Option<u64>,
        data: Vec<u8>,
    },
    Truncate(i64, u64),
    Sync(i64),
    Rename(PathBuf, PathBuf),
    Unlink(PathBuf),
    Mkdir(PathBuf),
}

/// Decodes a string argument as `strace -xx` prints it: `"\x41\x42"`.
fn unescape(quoted: &str) -> Option<Vec<u8>> {
    let inner = quoted.strip_prefix('"')?;
    let end = inner.find('"')?;
    let hex = &inner[..end];
    (0..hex.len() / 4)
        .map(|i| {
            let chunk = &hex[i * 4..i * 4 + 4];
            u8::from_str_radix(chunk.strip_prefix("\\x")?, 16).ok()
        })
        .collect()
}

/// Splits a call's text `name(args) = result` into its name, arguments and result.
fn split_call(text: &str) -> Option<(&str, Vec<&str>, i64)> {
    let open = text.find('(')?;
    // strace pads the result to a column: `close(3)      = 0`.
    let equals = text.rfind(" = ")?;
    let close = text[..equals].rfind(')')?;
    let name = &text[..open];
    let result: i64 = text[equals + 3..].split_whitespace().next()?.parse().ok()?;
    let args = text[open + 1..close].split(", ").collect();
    Some((name, args, result))
}

/// The store's operations in `log` (an `strace -f -xx` log), only those under `root`
/// and only calls that succeeded.
fn parse(log: &str, root: &Path) -> Vec<Op> {
    let mut pending: HashMap<&str, String> = HashMap::new();
    let mut ops = Vec::new();
    let under = |path: &Path| path.starts_with(root);
    for line in log.lines() {
        let Some((pid, rest)) = line.split_once(char::is_whitespace) else {
            continue;
        };
        let rest = rest.trim_start();
        let text = if let Some(start) = rest.strip_suffix(" <unfinished ...>") {
            pending.insert(pid, start.to_string());
            continue;
        } else if let Some(resumed) = rest.strip_prefix("<... ") {
            let Some(start) = pending.remove(pid) else {
                continue;
            };
            let tail = resumed.split_once("resumed>").map_or("", |(_, tail)| tail);
            format!("{start}{tail}")
        } else {
            rest.to_string()
        };
        let Some((name, args, result)) = split_call(&text) else {
            continue;
        };
        if result < 0 {
            continue;
        }
        let path =
            |arg: &str| unescape(arg).map(|bytes| PathBuf::from(String::from_utf8(bytes).unwrap()));
        let fd = |arg: &str| arg.trim().parse::<i64>().unwrap_or(-1);
        let op = match name {
            "openat" => path(args[1]).filter(|p| under(p)).map(|p| Op::Open {
                fd: result,
                path: p,
                create: args[2].contains("O_CREAT"),
                truncate: args[2].contains("O_TRUNC"),
            }),
            "close" => Some(Op::Close(fd(args[0]))),
            "write" | "pwrite64" => unescape(args[1]).map(|data| Op::Write {
                fd: fd(args[0]),
                offset: (name == "pwrite64").then(|| args[3].trim().parse().unwrap()),
                data: data[..result as usize].to_vec(),
            }),
            "ftruncate" => Some(Op::Truncate(fd(args[0]), args[1].trim().parse().unwrap())),
            "fsync" | "fdatasync" => Some(Op::Sync(fd(args[0]))),
            "rename" => match (path(args[0]), path(args[1])) {
                (Some(from), Some(to)) if under(&to) => Some(Op::Rename(from, to)),
                _ => None,
            },
            "renameat" | "renameat2" => match (path(args[1]), path(args[3])) {
                (Some(from), Some(to)) if under(&to) => Some(Op::Rename(from, to)),
                _ => None,
            },
            "unlink" => path(args[0]).filter(|p| under(p)).map(Op::Unlink),
            "unlinkat" => path(args[1]).filter(|p| under(p)).map(Op::Unlink),
            "mkdir" => path(args[0]).filter(|p| under(p)).map(Op::Mkdir),
            "mkdirat" => path(args[1]).filter(|p| under(p)).map(Op::Mkdir),
            _ => None,
        };
        ops.extend(op);
    }
    ops
}

/// One file's bytes as the process sees them and as the disk holds them for sure.
#[derive(Clone, Default)]
struct Inode {
    data: Vec<u8>,
    durable: Vec<u8>,
    /// Changes since the last sync, in order.
    unsynced: Vec<Change>,
}

/// A change to a file's bytes.
#[derive(Clone)]
enum Change {
    Write {
        offset: u64,
        bytes: Vec<u8>,
    },
    /// A truncation (`O_TRUNC`, `ftruncate`) to this length.
    Resize(u64),
}

impl Change {
    fn apply(&self, data: &mut Vec<u8>) {
        match self {
            Change::Write { offset, bytes } => {
                let offset = *offset as usize;
                if data.len() < offset + bytes.len() {
                    data.resize(offset + bytes.len(), 0);
                }
                data[offset..offset + bytes.len()].copy_from_slice(bytes);
            }
            Change::Resize(length) => data.resize(*length as usize, 0),
        }
    }
}

/// An open descriptor.
#[derive(Clone)]
enum Handle {
    Dir(PathBuf),
    File {
        inode: usize,
        position: u64,
        path: PathBuf,
    },
}

impl Inode {
    fn change(&mut self, change: Change) {
        change.apply(&mut self.data);
        self.unsynced.push(change);
    }
}

/// The files as a replay of the operations leaves them.
#[derive(Clone, Default)]
struct Disk {
    inodes: Vec<Inode>,
    /// Names as the process sees them, and as the disk holds them for sure.
    names: HashMap<PathBuf, usize>,
    durable_names: HashMap<PathBuf, usize>,
    dirs: Vec<PathBuf>,
    fds: HashMap<i64, Handle>,
}

impl Disk {
    fn apply(&mut self, op: &Op) {
        match op {
            Op::Mkdir(path) => self.dirs.push(path.clone()),
            Op::Open {
                fd,
                path,
                create,
                truncate,
            } => {
                if self.dirs.contains(path) {
                    self.fds.insert(*fd, Handle::Dir(path.clone()));
                    return;
                }
                let inode = match self.names.get(path) {
                    Some(&inode) => inode,
                    None if *create => {
                        self.inodes.push(Inode::default());
                        let inode = self.inodes.len() - 1;
                        self.names.insert(path.clone(), inode);
                        inode
                    }
                    None => return,
                };
                if *truncate {
                    self.inodes[inode].change(Change::Resize(0));
                }
                let position = 0;
                let path = path.clone();
                self.fds.insert(
                    *fd,
                    Handle::File {
                        inode,
                        position,
                        path,
                    },
                );
            }
            Op::Close(fd) => {
                self.fds.remove(fd);
            }
            Op::Write { fd, offset, data } => {
                let Some(Handle::File {
                    inode, position, ..
                }) = self.fds.get_mut(fd)
                else {
                    return;
                };
                let at = offset.unwrap_or(*position);
                if offset.is_none() {
                    *position += data.len() as u64;
                }
                self.inodes[*inode].change(Change::Write {
                    offset: at,
                    bytes: data.clone(),
                });
            }
            Op::Truncate(fd, length) => {
                if let Some(&Handle::File { inode, .. }) = self.fds.get(fd) {
                    self.inodes[inode].change(Change::Resize(*length));
                }
            }
            Op::Sync(fd) => {
                let (inode, path) = match self.fds.get(fd).cloned() {
                    None => return,
                    Some(Handle::File { inode, path, .. }) => (inode, path),
                    Some(Handle::Dir(path)) => {
                        // A directory: its entries as they are now.
                        let entries: Vec<(PathBuf, usize)> = self
                            .names
                            .iter()
                            .filter(|(name, _)| name.parent() == Some(path.as_path()))
                            .map(|(name, &inode)| (name.clone(), inode))
                            .collect();
                        self.durable_names
                            .retain(|name, _| name.parent() != Some(path.as_path()));
                        self.durable_names.extend(entries);
                        return;
                    }
                };
                let file = &mut self.inodes[inode];
                file.durable = file.data.clone();
                file.unsynced.clear();
                // ext4 commits a new file's own entry with it.
                self.durable_names.entry(path).or_insert(inode);
            }
            Op::Rename(from, to) => {
                if let Some(inode) = self.names.remove(from) {
                    self.names.insert(to.clone(), inode);
                }
            }
            Op::Unlink(path) => {
                self.names.remove(path);
            }
        }
    }

    /// The files a crash now leaves in `dir` (under `root`): the durable state, plus
    /// the first `extra` unsynced writes of the files `landed` names.
    fn image(&self, root: &Path, dir: &Path, extra: usize, landed: Landed<'_>) {
        std::fs::create_dir_all(dir).unwrap();
        for (name, &inode) in &self.durable_names {
            let file = &self.inodes[inode];
            let mut data = file.durable.clone();
            let extra = if landed(name) { extra } else { 0 };
            for change in file.unsynced.iter().take(extra) {
                change.apply(&mut data);
            }
            let target = dir.join(name.strip_prefix(root).unwrap());
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, data).unwrap();
        }
    }
}

/// Which files' unsynced writes land in an image.
type Landed<'a> = &'a dyn Fn(&Path) -> bool;

/// What opening a crash image found.
#[derive(Debug, PartialEq)]
enum Opened {
    /// Every acknowledged commit there.
    Whole,
    /// Refused, saying why.
    Refused(String),
    /// Opened with fewer commits than acknowledged: the failure this test looks for.
    Short { acknowledged: u64, last: u64 },
}

fn open_image(dir: &Path) -> Opened {
    let mark = std::fs::read_to_string(dir.join(rrm_store::MARK_FILE))
        .ok()
        .and_then(|text| {
            text.lines()
                .nth(1)?
                .strip_prefix("commit ")?
                .parse::<u64>()
                .ok()
        })
        .unwrap_or(0);
    let store = match rrm_store::Store::open(dir) {
        Ok(store) => store,
        Err(error) => return Opened::Refused(error.to_string()),
    };
    let last = store.last_commit().unwrap_or(0);
    let logged = store.commits_after(0).map_or(0, |c| c.len() as u64);
    if last < mark || logged < mark {
        return Opened::Short {
            acknowledged: mark,
            last: logged.min(last),
        };
    }
    Opened::Whole
}

#[test]
#[cfg_attr(
    rrm_without_strace,
    ignore = "strace is not on PATH (.ci/run installs it)"
)]
#[cfg_attr(
    all(rrm_fast_tests, not(rrm_without_strace)),
    ignore = "heavy: replays traced crash images (the full suite runs it)"
)]
fn crash_images_below_the_page_cache_open_whole_or_refuse() {
    let strace = Command::new("strace").arg("-V").output();
    assert!(strace.is_ok(), "strace is needed: {strace:?}");
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("store");
    let log_path = work.path().join("strace.log");
    let status = Command::new("strace")
        .args(["-f", "-qq", "-xx", "-s", "16777216", "-o"])
        .arg(&log_path)
        .args([
            "-e",
            "trace=openat,close,write,pwrite64,fsync,fdatasync,ftruncate,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat",
        ])
        .arg(env!("CARGO_BIN_EXE_rrm"))
        .args(["mine", "--seeds", "1..1201", "--unit-size", "20", "--data"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let log = std::fs::read_to_string(&log_path).unwrap();
    let ops = parse(&log, &root);
    assert!(
        ops.iter().any(|op| matches!(op, Op::Sync(_))),
        "no sync recorded"
    );
    let mut disk = Disk::default();
    let mut outcomes: HashMap<String, usize> = HashMap::new();
    let mut short = Vec::new();
    let mut refused = 0;
    let mut images = 0;
    for (index, op) in ops.iter().enumerate() {
        disk.apply(op);
        // At every sync, and at the write before each: the durable state alone, and
        // with the first one and first three unsynced writes of each file.
        let before_sync = matches!(ops.get(index + 1), Some(Op::Sync(_)));
        if !matches!(op, Op::Sync(_)) && !before_sync {
            continue;
        }
        let files: [(&str, Landed<'_>); 3] = [
            ("all files", &|_| true),
            ("sled's db", &|name| name.ends_with("db")),
            ("the journal", &|name| {
                name.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("journal-"))
            }),
        ];
        for (extra, (which, landed)) in [0, 1, 3, usize::MAX]
            .into_iter()
            .flat_map(|extra| files.iter().map(move |file| (extra, *file)))
        {
            if extra == 0 && which != "all files" {
                continue;
            }
            let dir = work
                .path()
                .join(format!("image-{index}-{extra}-{}", which.len()));
            disk.image(&root, &dir, extra, landed);
            let opened = open_image(&dir);
            images += 1;
            let writes = match extra {
                usize::MAX => "every unsynced write".to_string(),
                n => format!("{n} unsynced writes"),
            };
            let kind = match &opened {
                Opened::Whole => format!("{writes} of {which}: whole"),
                Opened::Refused(why) => format!(
                    "{writes} of {which}: refused: {}",
                    why.replace(&dir.display().to_string(), "IMAGE")
                ),
                Opened::Short { .. } => format!("{writes} of {which}: short"),
            };
            *outcomes.entry(kind).or_default() += 1;
            refused += usize::from(matches!(opened, Opened::Refused(_)));
            if matches!(opened, Opened::Short { .. }) {
                short.push((index, extra, opened));
            }
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
    eprintln!(
        "{} operations, {images} crash images: {outcomes:#?}",
        ops.len()
    );
    assert!(short.is_empty(), "opened short: {short:?}");
    assert_eq!(refused, 0, "images refused: {outcomes:#?}");
}
