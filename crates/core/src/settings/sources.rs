//! `Sources`: where settings are read from, and the snapshot `build()` takes of them once.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

/// Where settings are read from: the environment (the process's, or a map for tests), and
/// optionally one TOML file. Defaults < the file < the environment. Nothing is read until
/// `build()`, which takes one snapshot for every settings type.
///
/// ```
/// use green_tea::settings::Sources;
/// // Tests: never the process's environment, so they run in parallel.
/// let sources = Sources::from_env_map([("BILLING_URL", "http://127.0.0.1:3001")])
///     .toml("[billing]\ntimeout = \"5s\"\n", "test.toml")
///     .strict();
/// # let _ = sources;
/// ```
#[derive(Clone)]
#[must_use = "sources do nothing until given to `.settings(..)`"]
pub struct Sources {
    env: Env,
    file: Option<FileSource>,
    strict: bool,
}

/// Names the variables but shows none of their values: one may be a secret.
impl std::fmt::Debug for Sources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let env: Vec<String> = match &self.env {
            Env::Process => vec!["(the process's environment)".to_owned()],
            Env::Map(vars) => vars
                .iter()
                .map(|(name, _)| name.to_string_lossy().into_owned())
                .collect(),
        };
        let file = match &self.file {
            None => None,
            Some(FileSource::Path(path)) => Some(path.display().to_string()),
            Some(FileSource::FromEnv(variable)) => Some(format!("the path in {variable}")),
            Some(FileSource::Inline { name, .. }) => Some(format!("{name} (inline)")),
        };
        f.debug_struct("Sources")
            .field("env", &env)
            .field("file", &file)
            .field("strict", &self.strict)
            .finish()
    }
}

#[derive(Clone)]
enum Env {
    /// `std::env::vars_os()`, read at `build()`.
    Process,
    /// Given variables.
    Map(Vec<(OsString, OsString)>),
}

#[derive(Clone)]
enum FileSource {
    /// A path, read at `build()`; it must exist.
    Path(PathBuf),
    /// The path in this variable, if it is set.
    FromEnv(String),
    /// A TOML text, named for messages.
    Inline { text: String, name: String },
}

impl Default for Sources {
    /// [`Sources::from_env`].
    fn default() -> Self {
        Sources::from_env()
    }
}

impl Sources {
    /// The process's environment (`std::env::vars_os`, read once at `build()`), no file: what
    /// a builder reads without `.settings(..)`.
    pub fn from_env() -> Self {
        Sources {
            env: Env::Process,
            file: None,
            strict: false,
        }
    }

    /// These variables in place of the process's environment, for tests: a test that never
    /// touches the process's environment runs in parallel with the others.
    pub fn from_env_map<K, V>(vars: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        Self::from_env_os_map(
            vars.into_iter()
                .map(|(k, v)| (OsString::from(k.into()), OsString::from(v.into()))),
        )
    }

    /// Like [`from_env_map`](Self::from_env_map), with names and values as the operating
    /// system gives them, which may not be UTF-8 (a value that is not is a problem at
    /// `build()`, never read with a replacement character).
    pub fn from_env_os_map<K, V>(vars: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<OsString>,
        V: Into<OsString>,
    {
        Sources {
            env: Env::Map(
                vars.into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            ),
            file: None,
            strict: false,
        }
    }

    /// Reads the TOML file at `path` too (below the environment, above defaults); a file
    /// that does not exist is a problem at `build()`. The last file given is the one read.
    pub fn file(mut self, path: impl Into<PathBuf>) -> Self {
        self.file = Some(FileSource::Path(path.into()));
        self
    }

    /// Reads the TOML file whose path is in the variable `variable` (`SHOP_CONFIG`), if it is
    /// set; a file it names that does not exist is a problem at `build()`.
    pub fn file_from_env(mut self, variable: impl Into<String>) -> Self {
        self.file = Some(FileSource::FromEnv(variable.into()));
        self
    }

    /// Reads `text` as the TOML file, named `name` in messages (`config.toml:3:1`): for tests
    /// and examples.
    pub fn toml(mut self, text: impl Into<String>, name: impl Into<String>) -> Self {
        self.file = Some(FileSource::Inline {
            text: text.into(),
            name: name.into(),
        });
        self
    }

    /// Makes an unknown variable under a settings prefix (or an unknown key in a settings
    /// table) an error (GT0019), not a warning.
    pub fn strict(mut self) -> Self {
        self.strict = true;
        self
    }

    /// The path of the settings file these sources read, if they read one from a path (the
    /// variable of [`file_from_env`](Self::file_from_env) looked up now): what a reload that
    /// watches the file watches.
    pub(crate) fn file_path(&self) -> Option<PathBuf> {
        match self.file.as_ref()? {
            FileSource::Path(path) => Some(path.clone()),
            FileSource::FromEnv(variable) => {
                let value = match &self.env {
                    Env::Process => std::env::var_os(variable),
                    Env::Map(vars) => (vars.iter())
                        .find(|(name, _)| name == variable.as_str())
                        .map(|(_, value)| value.clone()),
                };
                value.filter(|v| !v.is_empty()).map(PathBuf::from)
            }
            FileSource::Inline { .. } => None,
        }
    }

    /// Reads the environment and the file's text: what every settings type is read from.
    pub(crate) fn load(&self) -> Loaded {
        let vars: Vec<(OsString, OsString)> = match &self.env {
            Env::Process => std::env::vars_os().collect(),
            Env::Map(vars) => vars.clone(),
        };
        let mut env = BTreeMap::new();
        for (name, value) in vars {
            // A name that is not UTF-8 cannot be any field's variable.
            if let Ok(name) = name.into_string() {
                env.insert(name, value.into_string());
            }
        }
        let file = match &self.file {
            None => None,
            Some(FileSource::Inline { text, name }) => Some(FileText {
                name: name.clone(),
                text: Ok(text.clone()),
                named_by: None,
            }),
            Some(FileSource::Path(path)) => Some(read_file(path.clone(), None)),
            Some(FileSource::FromEnv(variable)) => match env.get(variable) {
                None => None,
                Some(Ok(path)) if path.trim().is_empty() => Some(FileText {
                    name: path.clone(),
                    text: Err(FileError::EmptyVariable),
                    named_by: Some(variable.clone()),
                }),
                Some(Ok(path)) => Some(read_file(PathBuf::from(path), Some(variable.clone()))),
                Some(Err(path)) => Some(read_file(PathBuf::from(path), Some(variable.clone()))),
            },
        };
        Loaded {
            env,
            file,
            strict: self.strict,
            own: self.own_variables(),
        }
    }

    /// The variables the sources read themselves (`file_from_env`'s): never settings.
    fn own_variables(&self) -> Vec<String> {
        match &self.file {
            Some(FileSource::FromEnv(variable)) => vec![variable.clone()],
            _ => Vec::new(),
        }
    }
}

fn read_file(path: PathBuf, named_by: Option<String>) -> FileText {
    let name = path.display().to_string();
    let text = std::fs::read(&path)
        .map_err(FileError::Io)
        .and_then(|bytes| String::from_utf8(bytes).map_err(|_| FileError::NotUtf8));
    FileText {
        name,
        text,
        named_by,
    }
}

/// The sources as read at `build()`.
pub(crate) struct Loaded {
    /// Every variable with a UTF-8 name; its value, or the bytes that are not UTF-8.
    pub(crate) env: BTreeMap<String, Result<String, OsString>>,
    pub(crate) file: Option<FileText>,
    pub(crate) strict: bool,
    /// The variables the sources read themselves: the one that names the file.
    pub(crate) own: Vec<String>,
}

/// The file's text, or why there is none.
pub(crate) struct FileText {
    pub(crate) name: String,
    pub(crate) text: Result<String, FileError>,
    /// The variable that named it (`file_from_env`).
    pub(crate) named_by: Option<String>,
}

pub(crate) enum FileError {
    Io(std::io::Error),
    NotUtf8,
    /// `file_from_env`'s variable is set, but empty.
    EmptyVariable,
}
