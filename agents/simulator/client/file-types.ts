/** The file types the sites' inputs accept, shared by the pages (their `accept`) and the site server (its checks). */

/** DeepSeek's input accepts these (sim-markup.md). */
export const DEEPSEEK_EXTENSIONS = 'txt md pdf doc docx xls xlsx ppt pptx csv json py js ts html css c cpp java go rs png jpg jpeg gif webp bmp';

/** The 94 extensions of Perplexity's real input (real-pages/perplexity, research 2026-11-28). */
export const PERPLEXITY_EXTENSIONS =
  'bash bat c coffee conf config cpp cs css csv cxx dart diff doc docx fish go h hpp htm html in ini ipynb java js json jsx ksh kt kts latex less log lua m ' +
  'markdown md pdf php pl pm pptx py r rb rmd rs scala sh sql swift t tex text toml ts tsx txt xlsx xml yaml yml zsh jpeg jpg jpe jp2 png gif bmp tiff tif ' +
  'svg webp ico avif heic heif mp3 wav aiff ogg flac mp4 mpeg mov avi flv mpg webm wmv 3gp';
