import { Body, Container, Head, Html, Link, Preview, Section, Text } from "@vestibule/emails";

const palette = { page: "#f5f5f7", card: "#ffffff", text: "#1d1d1f", muted: "#6e6e73" };

type ThemeProps = {
  children: React.ReactNode;
  project: { displayName: string };
  unsubscribeLink?: string;
};

export function EmailTheme({ children, project, unsubscribeLink }: ThemeProps) {
  return (
    <Html>
      <Head />
      <Preview>{project.displayName}</Preview>
      <Body style={{ backgroundColor: palette.page, fontFamily: "-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif", color: palette.text, padding: "24px 0" }}>
        <Container style={{ backgroundColor: palette.card, borderRadius: "8px", padding: "32px" }}>
          {children}
        </Container>
        <Section style={{ maxWidth: "37.5em", padding: "16px 32px" }}>
          <Text style={{ fontSize: "12px", color: palette.muted, margin: 0 }}>
            Sent by {project.displayName}.
            {unsubscribeLink ? (
              <>
                {" "}
                <Link href={unsubscribeLink} style={{ color: palette.muted, textDecoration: "underline" }}>
                  Unsubscribe
                </Link>
              </>
            ) : null}
          </Text>
        </Section>
      </Body>
    </Html>
  );
}
