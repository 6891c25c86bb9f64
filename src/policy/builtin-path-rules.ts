import type { PathRule } from "./path-rules.ts";

/**
 * The built-in path rules, first match wins (operators' `paths.rules` are checked before them). Plain
 * data, checked at load by the same schema as operators' rules. Kept in a module rather than a JSON
 * file so that every install route (linked sources, the built package, the host's plugin capture)
 * carries them.
 *
 *   secret     reading needs owner (secrets:read); writing counts as system:admin
 *   protected  writing needs owner (system:admin)
 *   open       no path rule applies
 *
 * Placeholders: {home} (what ~ means to the host's file tools), {state} (OpenClaw's state directory),
 * {config} (its config file), {workspace} (the calling agent's workspace), {clawos} (ClawOS's state
 * directory), {audit} (ClawOS's audit log), {sessions} (ClawOS's session-state directory).
 */
export const BUILTIN_PATH_RULES: readonly PathRule[] = [
  { pattern: "{clawos}/**/*.key", zone: "secret", label: "ClawOS's state key" },
  { pattern: "{sessions}.key", zone: "secret", label: "ClawOS's state key" },
  { pattern: "{audit}", zone: "protected", label: "ClawOS's audit log" },
  { pattern: "{audit}.seal", zone: "protected", label: "ClawOS's audit log seal" },
  { pattern: "{sessions}.tainted.log", zone: "protected", label: "ClawOS's taint ledger" },
  { pattern: "{sessions}/**", zone: "protected", label: "ClawOS's session state" },
  { pattern: "{clawos}/**", zone: "protected", label: "ClawOS's own state" },
  { pattern: "{config}", zone: "secret", label: "OpenClaw's config (it holds tokens and keys, and ClawOS's own settings)" },
  { pattern: "{state}/openclaw.json*", zone: "secret", label: "OpenClaw's config and its backups" },
  { pattern: "{state}/.env", zone: "secret", label: "OpenClaw's environment file" },
  { pattern: "{state}/credentials/**", zone: "secret", label: "OpenClaw's credential store" },
  { pattern: "{state}/identity/**", zone: "secret", label: "OpenClaw's device identity keys" },
  { pattern: "{state}/agents/*/agent/**", zone: "secret", label: "an agent's auth profiles and transcripts" },
  { pattern: "{state}/agents/*/sessions/**", zone: "secret", label: "an agent's session transcripts (the owner's private messages and tool output)" },
  // OpenClaw's default state directory and its profiles' (~/.openclaw-<profile>), whichever one this gateway runs from.
  { pattern: "{home}/{.openclaw,.openclaw-*}/{openclaw.json*,.env}", zone: "secret", label: "an OpenClaw config or environment file" },
  { pattern: "{home}/{.openclaw,.openclaw-*}/{credentials,identity}/**", zone: "secret", label: "an OpenClaw credential store or identity keys" },
  {
    pattern: "{home}/{.openclaw,.openclaw-*}/agents/*/{agent,sessions}/**",
    zone: "secret",
    label: "an agent's auth profiles, session rows and transcripts (the owner's private messages and tool output)",
  },
  { pattern: "/proc/*/environ", zone: "secret", label: "a process's environment (it holds keys and tokens)" },
  { pattern: "/proc/*/task/*/environ", zone: "secret", label: "a thread's environment (its process's keys and tokens)" },
  { pattern: "{home}/.ssh/**", zone: "secret", label: "SSH keys and config" },
  { pattern: "{home}/.aws/**", zone: "secret", label: "AWS credentials" },
  { pattern: "{home}/.config/gcloud/**", zone: "secret", label: "Google Cloud credentials" },
  { pattern: "{home}/.azure/**", zone: "secret", label: "Azure credentials" },
  { pattern: "{home}/.kube/**", zone: "secret", label: "Kubernetes credentials" },
  { pattern: "{home}/.docker/config.json", zone: "secret", label: "Docker registry credentials" },
  { pattern: "{home}/.config/gh/**", zone: "secret", label: "GitHub CLI credentials" },
  { pattern: "{home}/.gnupg/**", zone: "secret", label: "GnuPG keys" },
  { pattern: "{home}/.password-store/**", zone: "secret", label: "the password store" },
  { pattern: "{home}/.local/share/keyrings/**", zone: "secret", label: "the desktop keyring" },
  { pattern: "{home}/{.netrc,.git-credentials,.npmrc,.pypirc,.pgpass,.my.cnf}", zone: "secret", label: "stored login credentials" },
  {
    pattern: "{home}/{.claude/.credentials.json,.codex/auth.json,.gemini/oauth_creds.json,.config/github-copilot/**}",
    zone: "secret",
    label: "a coding agent's stored login",
  },
  {
    pattern:
      "{home}/{.config/{google-chrome,chromium,BraveSoftware,microsoft-edge,vivaldi,opera},.mozilla/firefox,snap/firefox,Library/Application Support/{Google/Chrome,Firefox,BraveSoftware,Microsoft Edge},Library/Cookies}/**",
    zone: "secret",
    label: "a browser profile (saved passwords, cookies and sessions)",
  },
  { pattern: "{home}/{.bitcoin,.electrum,.ethereum/keystore,.solana,.config/solana}/**", zone: "secret", label: "a cryptocurrency wallet" },
  {
    pattern:
      "{home}/{.vault-token,.s3cfg,.boto,.dockercfg,.terraform.d/credentials.tfrc.json,.cargo/credentials,.cargo/credentials.toml,.gem/credentials,.m2/settings.xml,.m2/settings-security.xml,.gradle/gradle.properties,.composer/auth.json,.config/composer/auth.json,.config/hub,.config/rclone/rclone.conf,.config/doctl/config.yaml,.config/stripe/config.toml}",
    zone: "secret",
    label: "a tool's stored credentials",
  },
  {
    pattern:
      "{home}/{.bash_history,.zsh_history,.sh_history,.history,.python_history,.node_repl_history,.psql_history,.mysql_history,.sqlite_history,.rediscli_history,.local/share/fish/fish_history}",
    zone: "secret",
    label: "a shell or console history (commands typed with keys and passwords in them)",
  },
  {
    // Any project's environment file, not its committed template. A search of a whole tree does not
    // count as reading one (every tree may hold one): a read of the file itself does.
    pattern: "**/{.env,.envrc,.env.!(example|sample|template|dist|defaults|schema),*.env}",
    zone: "secret",
    label: "an environment file (it holds keys and passwords)",
    inDirectoryReads: false,
  },
  {
    // Key material wherever it is kept (a deploy key in a repository, a service account's JSON), not its public half.
    pattern:
      "**/{id_rsa,id_dsa,id_ecdsa,id_ed25519,*_rsa,*_dsa,*_ecdsa,*_ed25519,*.p12,*.pfx,*.jks,*.keystore,*.ppk,*.kdbx,*.key,key.pem,*privkey*.pem,*private*.pem,*-key.pem,*_key.pem,client_secret*.json,*service-account*.json,*service_account*.json}",
    zone: "secret",
    label: "a private key, a keystore or a service account's credentials",
    inDirectoryReads: false,
  },
  {
    pattern: "**/{.npmrc,.pypirc,.git-credentials,.pgpass}",
    zone: "secret",
    label: "a project's stored registry or login credentials",
    inDirectoryReads: false,
  },
  {
    pattern: "{workspace}/{AGENTS.md,SOUL.md,USER.md,IDENTITY.md,TOOLS.md,BOOT.md,BOOTSTRAP.md,HEARTBEAT.md,MEMORY.md}",
    zone: "protected",
    label: "the agent's instruction and bootstrap files (loaded into every session)",
  },
  { pattern: "{workspace}/skills/**", zone: "protected", label: "the agent's workspace skills (instructions the agent follows)" },
  // OpenClaw also loads skills from the project's and the user's .agents/skills (docs/tools/skills.md).
  { pattern: "{workspace}/.agents/skills/**", zone: "protected", label: "the project's agent skills (instructions the agent follows)" },
  { pattern: "{home}/.agents/skills/**", zone: "protected", label: "the user's personal agent skills (instructions every session follows)" },
  // OpenClaw loads an enabled workspace hook's handler into the gateway (handler.ts before handler.js).
  { pattern: "{workspace}/hooks/**", zone: "protected", label: "the agent's workspace hooks (code the gateway loads)" },
  { pattern: "**/.git/hooks/**", zone: "protected", label: "Git hooks (they run commands)" },
  // A .git file points git at a directory whose settings it then uses (`gitdir: ../x`): a repository of its own.
  { pattern: "**/.git", zone: "protected", label: "a Git repository's pointer or directory (git uses the settings it names)" },
  { pattern: "**/.git/config", zone: "protected", label: "a Git repository's config (it can run commands)" },
  {
    pattern: "{home}/{.bashrc,.bash_profile,.bash_login,.bash_logout,.profile,.zshrc,.zprofile,.zshenv,.zlogin,.zlogout,.cshrc,.tcshrc,.kshrc,.inputrc}",
    zone: "protected",
    label: "shell startup files",
  },
  { pattern: "{home}/.config/fish/**", zone: "protected", label: "shell startup files" },
  {
    pattern:
      "{home}/{.bash_aliases,.bashrc.d/**,.zshrc.d/**,.oh-my-zsh/custom/**,.xprofile,.xsession,.xsessionrc,.xinitrc,.pam_environment,.config/environment.d/**,.config/direnv/**}",
    zone: "protected",
    label: "shell and login startup files",
  },
  { pattern: "{home}/{.gitconfig,.config/git/**}", zone: "protected", label: "Git's user configuration (it can run commands)" },
  {
    pattern: "{home}/{.curlrc,.wgetrc,.config/pip/**,.pip/**,.config/uv/**,.condarc,.gemrc,.bundle/**,.cargo/config,.cargo/config.toml,.m2/**,.gradle/**}",
    zone: "protected",
    label: "a tool's user configuration (where it downloads from, what it runs)",
  },
  {
    pattern: "{home}/{.claude,.codex,.gemini,.cursor,.continue,.aider.conf.yml,.config/opencode}/**",
    zone: "protected",
    label: "a coding agent's settings (hooks and servers it runs)",
  },
  { pattern: "{home}/{.ipython,.jupyter}/**", zone: "protected", label: "IPython and Jupyter start-up files" },
  { pattern: "**/site-packages/**", zone: "protected", label: "installed Python packages (.pth files run at start-up)" },
  { pattern: "/etc/{profile,bash.bashrc,zshrc,zshenv,environment}", zone: "protected", label: "system shell startup files" },
  { pattern: "/etc/{profile.d,zsh}/**", zone: "protected", label: "system shell startup files" },
  { pattern: "{home}/.config/{autostart,systemd}/**", zone: "protected", label: "login startup items" },
  { pattern: "{home}/Library/LaunchAgents/**", zone: "protected", label: "login startup items" },
  // What only root can read because it is a key or a password (an agent that runs as root, or through sudo).
  { pattern: "/etc/{shadow,gshadow,shadow-,gshadow-}", zone: "secret", label: "the system's password hashes" },
  {
    pattern:
      "/etc/{ssh/ssh_host_*_key,ssl/private/**,pki/tls/private/**,letsencrypt/{live,archive}/**/privkey*,letsencrypt/{accounts,keys}/**,wireguard/**,NetworkManager/system-connections/**,mysql/debian.cnf}",
    zone: "secret",
    label: "the system's private keys and stored passwords",
  },
  { pattern: "/etc/{cron.d,cron.daily,cron.hourly,cron.weekly,cron.monthly,systemd}/**", zone: "protected", label: "system scheduled jobs and services" },
  { pattern: "/etc/{crontab,sudoers,passwd,hosts}", zone: "protected", label: "system configuration" },
  { pattern: "/etc/**", zone: "protected", label: "system configuration" },
  { pattern: "/var/spool/cron/**", zone: "protected", label: "scheduled jobs" },
  { pattern: "{workspace}/**", zone: "open", label: "the agent's workspace" },
  { pattern: "{state}/**", zone: "protected", label: "OpenClaw's state directory (sessions, plugins, skills, config)" },
];
