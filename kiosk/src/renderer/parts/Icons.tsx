// Drawn here rather than taken from a font: every kiosk shows the same shapes.
const common = {
  width: 40,
  height: 40,
  viewBox: '0 0 24 24',
  'aria-hidden': true,
  focusable: false,
} as const;

export const SpeakerIcon = () => (
  <svg {...common}>
    <path d="M3 9v6h4l5 4V5L7 9H3z" fill="currentColor" />
    <path
      d="M15.5 8.5a5 5 0 0 1 0 7M18 6a8.5 8.5 0 0 1 0 12"
      stroke="currentColor"
      strokeWidth="2"
      fill="none"
      strokeLinecap="round"
    />
  </svg>
);

export const LowIcon = () => (
  <svg {...common}>
    <path d="M12 3v13M6 11l6 6 6-6M4 21h16" stroke="currentColor" strokeWidth="2.5" fill="none" />
  </svg>
);

export const ContrastIcon = () => (
  <svg {...common}>
    <circle cx="12" cy="12" r="9" stroke="currentColor" strokeWidth="2.5" fill="none" />
    <path d="M12 3a9 9 0 0 1 0 18z" fill="currentColor" />
  </svg>
);

export const LargeTextIcon = () => (
  <svg {...common}>
    <path d="M2 20 8 4h2l6 16M4.5 14h9" stroke="currentColor" strokeWidth="2.2" fill="none" />
    <path d="M19 4v8M15 8h8" stroke="currentColor" strokeWidth="2.2" />
  </svg>
);

export const HelpIcon = () => (
  <svg {...common}>
    <circle cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="2.2" fill="none" />
    <path
      d="M9 9.5a3 3 0 1 1 4.5 2.6c-1 .6-1.5 1.2-1.5 2.4"
      stroke="currentColor"
      strokeWidth="2.2"
      fill="none"
    />
    <circle cx="12" cy="18" r="1.4" fill="currentColor" />
  </svg>
);
