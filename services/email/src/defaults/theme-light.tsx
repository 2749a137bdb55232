import { Body, Container, Head, Html, Link, Preview, Section, Text } from "@vestibule/emails";

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
      <Body style={{ backgroundColor: "#f5f5f7", fontFamily: "-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif", color: "#1d1d1f", padding: "24px 0" }}>
        <Container style={{ backgroundColor: "#ffffff", borderRadius: "8px", padding: "32px" }}>
          {children}
        </Container>
        <Section style={{ maxWidth: "37.5em", padding: "16px 32px" }}>
          <Text style={{ fontSize: "12px", color: "#6e6e73", margin: 0 }}>
            Sent by {project.displayName}.
            {unsubscribeLink ? (
              <>
                {" "}
                <Link href={unsubscribeLink} style={{ color: "#6e6e73", textDecoration: "underline" }}>
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
