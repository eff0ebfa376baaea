//! Output files checked before any work and written whole or not at all: a temporary
//! sibling is created up front, so that a missing or unwritable directory fails at once
//! rather than after minutes of solving, and renamed over the target when the content is
//! ready, so that a failure never leaves half a file.

use anyhow::{bail, Context, Result};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// An output file being prepared; dropped without [`OutFile::write`], it leaves nothing.
pub struct OutFile {
    path: PathBuf,
    temp: PathBuf,
    file: Option<File>,
}

impl OutFile {
    /// Checks that `path` can be written, by creating its temporary sibling.
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
        let temp = dir.join(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .with_context(|| format!("cannot write {shown}"))?;
        Ok(OutFile {
            path: path.to_path_buf(),
            temp,
            file: Some(file),
        })
    }

    /// Writes the whole content and puts the file in place.
    pub fn write(mut self, content: &[u8]) -> Result<()> {
        let mut file = self.file.take().expect("written once");
        file.write_all(content)
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        drop(file);
        std::fs::rename(&self.temp, &self.path)
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        // After a successful rename the temporary name is gone and this does nothing.
        let _ = std::fs::remove_file(&self.temp);
    }
}
