package hooks

// geminiSystemDir holds Gemini CLI's system-wide settings on Windows.
const geminiSystemDir = `C:\ProgramData\gemini-cli`
