/**
 * The words ChatGPT's page shows, in the two UI languages the research saw on the live
 * site: English, and Russian (research/providers-live-2026.md C1 and C4 are Russian
 * accounts: "Отправить", "Остановить", "ChatGPT сказал:", "Повторить", the safety-review
 * notice). Only the app-shell build is localized here: it is the build those accounts ran.
 * Where the research gives no Russian wording, the translation is ours.
 */
export interface ChatGptWords {
  lang: string;
  placeholder: string;
  send: string;
  stop: string;
  voice: string;
  addContext: string;
  model: string;
  youSaid: string;
  chatgptSaid: string;
  copy: string;
  copyMessage: string;
  editMessage: string;
  good: string;
  bad: string;
  share: string;
  switchModel: string;
  more: string;
  retry: string;
  /** The network-error alert stayed English on the Russian account (C4). */
  networkError: string;
  review: string;
  policy: string;
  chooser: string;
  chooserNote: string;
  prefer: string;
  response: (n: number) => string;
  chat: string;
  work: string;
  composerMode: string;
  workPlaceholder: string;
  working: string;
  editCode: string;
}

const en: ChatGptWords = {
  lang: 'en',
  placeholder: 'Ask anything',
  send: 'Send',
  stop: 'Stop',
  voice: 'Start voice mode',
  addContext: 'Add files and more',
  model: 'Thinking',
  youSaid: 'You said:',
  chatgptSaid: 'ChatGPT said:',
  copy: 'Copy',
  copyMessage: 'Copy message',
  editMessage: 'Edit message',
  good: 'Good response',
  bad: 'Bad response',
  share: 'Share',
  switchModel: 'Switch model',
  more: 'More actions',
  retry: 'Retry',
  networkError: 'A network error occurred. Please check your connection and try again.',
  review: 'Our systems are performing additional processing on this request before providing a response.',
  policy: 'This content may violate our usage policies.',
  chooser: 'Which response do you prefer?',
  chooserNote: 'Responses may take a moment to load.',
  prefer: 'I prefer this response',
  response: (n) => `Response ${n}`,
  chat: 'Chat',
  work: 'Work',
  composerMode: 'Composer mode',
  workPlaceholder: 'Describe a task',
  working: 'Working on your task…',
  editCode: 'Edit code',
};

const ru: ChatGptWords = {
  lang: 'ru',
  placeholder: 'Спросить ChatGPT',
  send: 'Отправить',
  stop: 'Остановить',
  voice: 'Запустить голосовой режим',
  addContext: 'Добавить файлы и другое',
  model: 'Думать',
  youSaid: 'Вы сказали:',
  chatgptSaid: 'ChatGPT сказал:',
  copy: 'Копировать',
  copyMessage: 'Копировать сообщение',
  editMessage: 'Редактировать сообщение',
  good: 'Хороший ответ',
  bad: 'Плохой ответ',
  share: 'Поделиться',
  switchModel: 'Сменить модель',
  more: 'Другие действия',
  retry: 'Повторить',
  networkError: en.networkError,
  review: 'Наши системы выполняют дополнительную обработку этого запроса, прежде чем предоставить ответ.',
  policy: 'Этот контент может нарушать наши правила использования.',
  chooser: 'Какой ответ вам больше нравится?',
  chooserNote: 'Загрузка ответов может занять некоторое время.',
  prefer: 'Я предпочитаю этот ответ',
  response: (n) => `Ответ ${n}`,
  chat: 'Чат',
  work: 'Работа',
  composerMode: 'Режим ввода',
  workPlaceholder: 'Опишите задачу',
  working: 'Работаю над задачей…',
  editCode: 'Редактировать код',
};

export const CHATGPT_WORDS = { en, ru } as const;
