package hooks

// geminiSystemDir holds Gemini CLI's system-wide settings on macOS.
const geminiSystemDir = "/Library/Application Support/GeminiCli"
