/**
 * The labels the six skins (and the drift's own dialog) show, in German (drift kind
 * `labels`): what a person whose browser asks for German sees. German is one of the eight
 * languages of the shared vocabulary (agents/providers/ui-words.ts); the wording follows
 * the German UIs of the sites where it is known, and plain German where not. Labels not
 * listed stay as they are, as brand and model names do on the real sites.
 */
export const GERMAN: Readonly<Record<string, string>> = {
  // Sending and stopping
  Send: 'Senden',
  'Send message': 'Nachricht senden',
  'Send prompt': 'Prompt senden',
  Submit: 'Absenden',
  Stop: 'Stopp',
  'Stop streaming': 'Streaming stoppen',
  'Stop response': 'Antwort stoppen',
  'Stop generating': 'Generierung stoppen',
  // Copying
  Copy: 'Kopieren',
  'Copy code': 'Code kopieren',
  'Copy to clipboard': 'In die Zwischenablage kopieren',
  'Copy message': 'Nachricht kopieren',
  'Copy response': 'Antwort kopieren',
  Copied: 'Kopiert',
  // A turn's actions
  Retry: 'Wiederholen',
  'Try again': 'Erneut versuchen',
  Regenerate: 'Neu generieren',
  Redo: 'Erneut generieren',
  'Edit prompt': 'Prompt bearbeiten',
  'Edit message': 'Nachricht bearbeiten',
  'Good response': 'Gute Antwort',
  'Bad response': 'Schlechte Antwort',
  'Give positive feedback': 'Positives Feedback geben',
  'Give negative feedback': 'Negatives Feedback geben',
  Helpful: 'Hilfreich',
  'Not helpful': 'Nicht hilfreich',
  Share: 'Teilen',
  Rewrite: 'Umschreiben',
  'Read aloud': 'Vorlesen',
  Download: 'Herunterladen',
  More: 'Mehr',
  'More actions': 'Weitere Aktionen',
  'Show more options': 'Weitere Optionen anzeigen',
  'Message actions': 'Nachrichtenaktionen',
  'I prefer this response': 'Ich bevorzuge diese Antwort',
  // The composer
  'Ask anything': 'Frag einfach',
  'Ask anything…': 'Frag einfach …',
  'Ask a follow-up': 'Stell eine Folgefrage',
  'Write a message…': 'Schreib eine Nachricht …',
  'Enter a prompt here': 'Prompt hier eingeben',
  'Enter a prompt for Gemini': 'Prompt für Gemini eingeben',
  'Ask Gemini': 'Gemini fragen',
  'Message DeepSeek': 'Nachricht an DeepSeek',
  'How can I help you today?': 'Wie kann ich dir heute helfen?',
  'Add files': 'Dateien hinzufügen',
  'Add files or tools': 'Dateien oder Tools hinzufügen',
  'Upload and tools': 'Hochladen und Tools',
  'Start voice mode': 'Sprachmodus starten',
  'Use voice mode': 'Sprachmodus verwenden',
  Microphone: 'Mikrofon',
  Dictation: 'Diktieren',
  Model: 'Modell',
  Search: 'Suche',
  Research: 'Recherche',
  Work: 'Arbeit',
  // Page chrome
  'New chat': 'Neuer Chat',
  'Start new chat': 'Neuen Chat beginnen',
  Sidebar: 'Seitenleiste',
  'Main menu': 'Hauptmenü',
  Home: 'Startseite',
  Library: 'Bibliothek',
  Account: 'Konto',
  'Tell me more': 'Erzähl mir mehr',
  'What are the alternatives?': 'Welche Alternativen gibt es?',
  'Can you give an example?': 'Kannst du ein Beispiel geben?',
  // Dialogs and signing in
  Close: 'Schließen',
  Dismiss: 'Ausblenden',
  'Got it': 'Verstanden',
  'Log in': 'Anmelden',
  'Sign in': 'Anmelden',
  'Sign up': 'Registrieren',
  'Sign Up': 'Registrieren',
  'Sign up for free': 'Kostenlos registrieren',
  'Continue with Google': 'Weiter mit Google',
  'Continue with Apple': 'Weiter mit Apple',
  'Continue with email': 'Weiter mit E-Mail',
  'Enter your email': 'E-Mail-Adresse eingeben',
  'Upgrade to Pro': 'Auf Pro upgraden',
  'Send code': 'Code senden',
  'Phone number': 'Telefonnummer',
};

/** Labels with a number or a name in them. */
const PATTERNS: [RegExp, string][] = [
  [/^Message (\d+) of (\d+)$/, 'Nachricht $1 von $2'],
  [/^Google Account: (.+)$/, 'Google-Konto: $1'],
  [/^(\S+) code$/, 'Code ($1)'],
];

/** `english` in German, or null when the dictionary does not have it. */
export function germanLabel(english: string): string | null {
  const german = GERMAN[english];
  if (german !== undefined) return german;
  for (const [pattern, replacement] of PATTERNS) if (pattern.test(english)) return english.replace(pattern, replacement);
  return null;
}
