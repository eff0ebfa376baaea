//! Output files checked before any work and written whole or not at all: the directory is
//! probed up front, so that a missing or unwritable one fails at once rather than after
//! minutes of solving, and the content goes to a temporary sibling renamed over the
//! target, so that a failure never leaves half a file.

use anyhow::{bail, Context, Result};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// An output file known to be writable.
pub struct OutFile {
    path: PathBuf,
    temp: PathBuf,
}

impl OutFile {
    /// Checks that `path` can be written, by creating and removing its temporary sibling;
    /// nothing is left behind if the command stops before writing.
    pub fn create(path: &Path) -> Result<OutFile> {
        let shown = path.display();
        let Some(name) = path.file_name() else {
            bail!("cannot write {shown}: not a file name");
        };
        if path.is_dir() {
            bail!("cannot write {shown}: it is a directory");
        }
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        if !dir.exists() {
            bail!(
                "cannot write {shown}: directory {} does not exist",
                dir.display()
            );
        }
        if !dir.is_dir() {
            bail!("cannot write {shown}: {} is not a directory", dir.display());
        }
        let file = OutFile {
            path: path.to_path_buf(),
            temp: dir.join(format!(
                ".{}.{}.tmp",
                name.to_string_lossy(),
                std::process::id()
            )),
        };
        file.open_temp(0o644)?;
        std::fs::remove_file(&file.temp).with_context(|| format!("cannot write {shown}"))?;
        Ok(file)
    }

    /// Creates the temporary file with `mode` (on Unix; before the umask).
    fn open_temp(&self, mode: u32) -> Result<std::fs::File> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
        #[cfg(not(unix))]
        let _ = mode;
        options
            .open(&self.temp)
            .with_context(|| format!("cannot write {}", self.path.display()))
    }

    /// Writes the whole content and puts the file in place.
    pub fn write(self, content: &[u8]) -> Result<()> {
        self.write_with_mode(content, 0o644)
    }

    /// As [`OutFile::write`], readable and writable by the owner only (secrets).
    pub fn write_private(self, content: &[u8]) -> Result<()> {
        self.write_with_mode(content, 0o600)
    }

    fn write_with_mode(self, content: &[u8], mode: u32) -> Result<()> {
        let written = self.open_temp(mode).and_then(|mut file| {
            file.write_all(content)
                .and_then(|()| file.flush())
                .with_context(|| format!("cannot write {}", self.path.display()))?;
            std::fs::rename(&self.temp, &self.path)
                .with_context(|| format!("cannot write {}", self.path.display()))
        });
        if written.is_err() {
            let _ = std::fs::remove_file(&self.temp);
        }
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_up_front_and_leaves_only_the_finished_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pack.json");
        let out = OutFile::create(&path).unwrap();
        let names = || -> Vec<_> {
            std::fs::read_dir(dir.path())
                .unwrap()
                .map(|entry| entry.unwrap().file_name())
                .collect()
        };
        assert!(names().is_empty(), "nothing left by the check");
        out.write(b"{}").unwrap();
        assert_eq!(names(), ["pack.json"]);
        assert_eq!(std::fs::read(&path).unwrap(), b"{}");

        let missing = dir.path().join("nope").join("p.json");
        let error = OutFile::create(&missing).err().unwrap().to_string();
        assert!(error.contains("does not exist"), "{error}");
        let error = OutFile::create(dir.path()).err().unwrap().to_string();
        assert!(error.contains("is a directory"), "{error}");
        let under_a_file = path.join("p.json");
        let error = OutFile::create(&under_a_file).err().unwrap().to_string();
        assert!(error.contains("is not a directory"), "{error}");
    }
}
