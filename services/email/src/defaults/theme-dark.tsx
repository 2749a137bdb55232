import { Body, Container, Head, Html, Link, Section, Text } from "@vestibule/emails";

type ThemeProps = {
  children: React.ReactNode;
  project: { displayName: string };
  unsubscribeLink?: string;
};

export function EmailTheme({ children, project, unsubscribeLink }: ThemeProps) {
  return (
    <Html>
      <Head />
      <Body style={{ backgroundColor: "#111114", fontFamily: "-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif", color: "#f5f5f7", padding: "24px 0" }}>
        <Container style={{ backgroundColor: "#1c1c21", borderRadius: "8px", padding: "32px" }}>
          {children}
        </Container>
        <Section style={{ maxWidth: "37.5em", padding: "16px 32px" }}>
          <Text style={{ fontSize: "12px", color: "#a1a1a6", margin: 0 }}>
            Sent by {project.displayName}.
            {unsubscribeLink ? (
              <>
                {" "}
                <Link href={unsubscribeLink} style={{ color: "#a1a1a6", textDecoration: "underline" }}>
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
